package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No Netty buffer is leaked by RESP or HTTP traffic, including the paths that end early: protocol
 * errors, clients that vanish mid-request or before an {@code always} reply is released, oversized
 * values. The launcher turns Netty's leak detector off for speed, so this is where a leak must be
 * caught: the detector runs here at its paranoid level (every buffer tracked) and a listener turns
 * each report into a test failure.
 */
class BufferLeakTest {
  @TempDir Path dir;
  private ResourceLeakDetector<?> detector;
  private ResourceLeakDetector.Level levelBefore;
  private final List<String> leaks = new CopyOnWriteArrayList<>();

  @BeforeEach
  void trackEveryBuffer() throws ReflectiveOperationException {
    Field f = AbstractByteBuf.class.getDeclaredField("leakDetector");
    f.setAccessible(true);
    detector = (ResourceLeakDetector<?>) f.get(null);
    levelBefore = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    collectLeaks(); // reports of buffers dropped before this test are not this test's
    leaks.clear();
    detector.setLeakListener((type, records) -> leaks.add(type + ": " + records));
  }

  @AfterEach
  void restore() {
    detector.setLeakListener(null);
    ResourceLeakDetector.setLevel(levelBefore);
  }

  /** Leaked buffers are found when collected; the detector reports them at its next allocation. */
  private void collectLeaks() {
    for (int i = 0; i < 5; i++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      ByteBufAllocator.DEFAULT.directBuffer(8).release();
      ByteBufAllocator.DEFAULT.heapBuffer(8).release();
    }
  }

  @Test
  void theDetectorReportsABufferNobodyReleased() {
    // Netty reports a leak only while its logger is on, so this one is logged too.
    System.out.println(
        "BufferLeakTest: the LEAK report that follows is this test's deliberate leak");
    ByteBuf dropped = ByteBufAllocator.DEFAULT.directBuffer(64);
    dropped.writeLong(42);
    dropped = null;
    collectLeaks();
    assertFalse(
        leaks.isEmpty(),
        "a deliberately leaked buffer went unreported: this test cannot see leaks");
  }

  @Test
  void respAndHttpTrafficOnEveryTransportLeaksNothing() throws Exception {
    List<String> transports = new ArrayList<>(List.of("nio"));
    if (Transport.available("io_uring")) {
      transports.add("io_uring");
    }
    if (Transport.available("epoll")) {
      transports.add("epoll");
    }
    for (String transport : transports) {
      for (String fsync : List.of("no", "always")) {
        Path data = Files.createDirectories(dir.resolve(transport + "-" + fsync));
        int httpPort = freePort();
        try (CellarServer server =
            CellarServer.start(
                new ServerConfig()
                    .set("port", "0")
                    .set("http-port", Integer.toString(httpPort))
                    .set("dir", data.toString())
                    .set("transport", transport)
                    .set("appendfsync", fsync))) {
          respTraffic(server.port());
          httpTraffic(httpPort);
        }
      }
    }
    collectLeaks();
    assertEquals(List.of(), leaks);
  }

  private static void respTraffic(int port) throws IOException {
    try (RawClient c = new RawClient(port)) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      for (int i = 0; i < 200; i++) {
        batch.writeBytes(RawClient.command("SET", "k" + i, "v".repeat(i)));
        batch.writeBytes(RawClient.command("GET", "k" + i));
      }
      batch.writeBytes(RawClient.command("MGET", "k1", "k2", "missing"));
      batch.writeBytes(RawClient.command("NOSUCHCOMMAND"));
      batch.writeBytes(RawClient.command("PING"));
      c.send(batch.toByteArray());
      c.read(1); // the server is answering; the rest may come or not, it does not matter here
    }
    byte[] big = new byte[2 << 20];
    try (RawClient c = new RawClient(port)) {
      ByteArrayOutputStream set = new ByteArrayOutputStream();
      set.writeBytes(
          ("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + big.length + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      set.writeBytes(big);
      set.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      c.send(set.toByteArray());
      c.readLine();
      c.send("GET", "big").read(big.length + 12);
    }
    try (RawClient c = new RawClient(port)) {
      c.send("*x\r\n".getBytes(StandardCharsets.US_ASCII)); // protocol error: the server closes
      c.closedByPeer();
    }
    // Gone mid-request, and gone with writes (under always, replies held for an fsync) in flight.
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.getOutputStream()
          .write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc".getBytes(StandardCharsets.US_ASCII));
    }
    try (Socket s = new Socket("127.0.0.1", port)) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      for (int i = 0; i < 500; i++) {
        batch.writeBytes(RawClient.command("SET", "gone" + i, "x"));
      }
      s.getOutputStream().write(batch.toByteArray());
    }
    try (RawClient c = new RawClient(port)) {
      c.send("PING").readLine(); // the server has dealt with the vanished clients' bytes by now
    }
  }

  private static void httpTraffic(int port) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newHttpClient();
    URI base = URI.create("http://127.0.0.1:" + port);
    List<HttpRequest> requests =
        List.of(
            HttpRequest.newBuilder(base.resolve("/v1/kv/a"))
                .PUT(HttpRequest.BodyPublishers.ofString("value"))
                .build(),
            HttpRequest.newBuilder(base.resolve("/v1/kv/a")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/v1/kv/missing")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/v1/scan?prefix=k")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/metrics")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/v1/info")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/no/such/route")).GET().build(),
            HttpRequest.newBuilder(base.resolve("/v1/kv/a")).DELETE().build());
    for (HttpRequest r : requests) {
      client.send(r, HttpResponse.BodyHandlers.discarding());
    }
    try (Socket s = new Socket("127.0.0.1", port)) { // gone in the middle of a body
      s.getOutputStream()
          .write(
              "PUT /v1/kv/b HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc"
                  .getBytes(StandardCharsets.US_ASCII));
    }
    client.send(
        HttpRequest.newBuilder(base.resolve("/healthz")).GET().build(),
        HttpResponse.BodyHandlers.discarding());
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
