package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GET and SET allocate nothing per request on the server's event loop: the request is parsed in
 * place, the engine is handed ranges of the input buffer, and the value is copied from the log
 * into the reply buffer. What remains is Netty's, per socket read or write, not per request (on
 * io_uring a submission object for each read and each write, and on every transport a ByteBuffer
 * duplicate to copy a received buffer out, since without sun.misc.Unsafe Netty has no other way):
 * with 64 requests a read, a few bytes a request.
 *
 * <p>Measured with the JVM's per-thread allocation counter on the loop thread, after a warm-up
 * long enough for the JIT to compile the path: an interpreted or C1-compiled path allocates what
 * escape analysis would remove. A request that allocated one object (a key slice is 40 bytes, the
 * smallest object 16) would more than double the limit below.
 */
class GarbageFreePathTest {
  private static final int KEYS = 4096;
  private static final int PIPELINE = 64;
  private static final int VALUE_BYTES = 60;
  private static final int WARM_UP_ROUNDS = 60;
  private static final int MEASURED_ROUNDS = 10;
  /** Netty's per-I/O objects spread over a batch of 64 come to 2-4 bytes a request. */
  private static final double LIMIT_BYTES_PER_REQUEST = 8;

  @TempDir Path dir;

  private static boolean available(String transport) {
    return switch (transport) {
      case "io_uring" -> IoUring.isAvailable();
      case "epoll" -> Epoll.isAvailable();
      default -> true;
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void pipelinedGetsAndSetsAllocateNothingPerRequest(String transport) throws IOException {
    assumeTrue(available(transport), transport + " does not load on this machine");
    byte[] value = "v".repeat(VALUE_BYTES).getBytes(StandardCharsets.US_ASCII);
    List<byte[]> sets = batches("SET", value);
    List<byte[]> gets = batches("GET", null);
    byte[] okReplies = "+OK\r\n".repeat(PIPELINE).getBytes(StandardCharsets.US_ASCII);
    byte[] valueReplies = ("$" + VALUE_BYTES + "\r\n" + "v".repeat(VALUE_BYTES) + "\r\n").repeat(PIPELINE)
        .getBytes(StandardCharsets.US_ASCII);
    byte[] reply = new byte[Math.max(okReplies.length, valueReplies.length)];
    try (CellarServer server = CellarServer.start(new ServerConfig().set("port", "0").set("http-port", "0")
            .set("dir", dir.toString()).set("transport", transport).set("threads", "1").set("appendfsync", "no"));
        Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(30_000);
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      for (int round = 0; round < WARM_UP_ROUNDS; round++) {
        exchange(out, in, sets, okReplies, reply);
        exchange(out, in, gets, valueReplies, reply);
      }
      long[] loops = loopThreadIds();
      long before = allocatedBytes(loops);
      for (int round = 0; round < MEASURED_ROUNDS; round++) {
        exchange(out, in, sets, okReplies, reply);
        exchange(out, in, gets, valueReplies, reply);
      }
      long allocated = allocatedBytes(loops) - before;
      long requests = 2L * MEASURED_ROUNDS * KEYS;
      double perRequest = (double) allocated / requests;
      System.out.printf("GarbageFreePathTest %s: %d bytes allocated by the loop for %d requests, %.2f a request%n",
          transport, allocated, requests, perRequest);
      assertTrue(perRequest <= LIMIT_BYTES_PER_REQUEST,
          transport + ": the event loop allocated " + allocated + " bytes for " + requests + " GETs and SETs, "
              + perRequest + " a request (limit " + LIMIT_BYTES_PER_REQUEST + ")");
    }
  }

  /** Requests {@code command key:<n>} (with {@code value} for SET) for every key, 64 to a batch. */
  private static List<byte[]> batches(String command, byte[] value) {
    List<byte[]> batches = new java.util.ArrayList<>();
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int n = 0; n < KEYS; n++) {
      String key = String.format("key:%012d", n);
      batch.writeBytes(value == null ? RawClient.command(command, key)
          : RawClient.command(command, key, new String(value, StandardCharsets.US_ASCII)));
      if ((n + 1) % PIPELINE == 0) {
        batches.add(batch.toByteArray());
        batch.reset();
      }
    }
    return batches;
  }

  /** Sends each batch and reads its replies, which must be exactly {@code expected}. */
  private static void exchange(OutputStream out, InputStream in, List<byte[]> batches, byte[] expected, byte[] reply)
      throws IOException {
    for (byte[] batch : batches) {
      out.write(batch);
      out.flush();
      for (int got = 0; got < expected.length; ) {
        int n = in.read(reply, got, expected.length - got);
        if (n < 0) {
          throw new EOFException("the server closed the connection after " + got + " bytes of a reply");
        }
        got += n;
      }
      assertArrayEquals(expected, Arrays.copyOf(reply, expected.length));
    }
  }

  private static long[] loopThreadIds() {
    long[] ids = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("cellar-loop-"))
        .mapToLong(Thread::threadId)
        .toArray();
    assertTrue(ids.length == 1, "expected the one event loop thread, found " + ids.length);
    return ids;
  }

  private static long allocatedBytes(long[] threads) {
    com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    return Arrays.stream(bean.getThreadAllocatedBytes(threads)).sum();
  }
}
