package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's limits under load, each against a server in a JVM of its own with the launcher's
 * options ({@link ServerJvm}), so that memory is measured where it is spent and an OutOfMemoryError
 * would show in the child's output: a thousand connections pipelining at once; a hundred clients
 * that never read their replies; many clients that announce 1 GB bulks; and {@code maxmemory} under
 * {@code noeviction}, {@code allkeys-random} and {@code volatile-ttl}.
 *
 * <p>Nothing here is timed. Memory bounds are derived from the configured limits times the clients
 * plus a fixed allowance for the JVM; waits are only for the server to catch up, and fail after a
 * generous deadline instead of hanging.
 */
class LoadTest {
  private static final long MIB = 1 << 20;
  private static final String OOM = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

  @TempDir Path dir;

  @Test
  void aThousandConnectionsPipelineAtOnceAndEveryReplyArrivesInOrder() throws Exception {
    int connections = 1000;
    int batches = 5;
    int pairs = 20;
    long ownLimit = ServerJvm.OpenFiles.softLimit(Path.of("/proc/self/limits"));
    assertTrue(
        ownLimit > connections + 200,
        "the test JVM may open only "
            + ownLimit
            + " files; raise ulimit -n above "
            + (connections + 200));
    try (ServerJvm server =
        ServerJvm.start(dir, "maxclients", Integer.toString(connections + 100))) {
      assertTrue(
          server.openFilesLimit() > connections + 200,
          "the server JVM may open only "
              + server.openFilesLimit()
              + " files; raise ulimit -n above "
              + (connections + 200));
      List<RawClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < connections; i++) {
          clients.add(
              new RawClient(
                  server.port())); // one by one: a burst of SYNs could overflow the accept queue
        }
        assertEquals(
            connections,
            awaitAtLeast(server, "clients", "connected_clients", connections + 1)
                - 1); // +1: INFO's own
        CountDownLatch go = new CountDownLatch(1);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int id = 0; id < connections; id++) {
          RawClient client = clients.get(id);
          int clientId = id;
          threads.add(
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          go.await();
                          for (int b = 0; b < batches; b++) {
                            pipelineSetsAndGets(client, clientId, b, pairs);
                          }
                        } catch (Throwable e) {
                          failures.add(e);
                        }
                      }));
        }
        go.countDown();
        for (Thread t : threads) {
          t.join();
        }
        assertEquals(List.of(), failures.stream().limit(5).map(Throwable::toString).toList());
      } finally {
        for (RawClient c : clients) {
          c.close();
        }
      }
      assertEquals(
          "keys=" + connections * batches * pairs,
          server.info("keyspace").get("db0").split(",")[0]);
      assertHealthy(server);
    }
  }

  /** Sends {@code pairs} SET+GET pairs in one write and checks every reply, in order. */
  private static void pipelineSetsAndGets(RawClient client, int id, int batch, int pairs)
      throws IOException {
    StringBuilder request = new StringBuilder();
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < pairs; i++) {
      String key = "c" + id + ":" + batch + ":" + i;
      String value = "v" + id + "-" + batch + "-" + i;
      request.append(new String(RawClient.command("SET", key, value), StandardCharsets.UTF_8));
      request.append(new String(RawClient.command("GET", key), StandardCharsets.UTF_8));
      expected
          .append("+OK\r\n$")
          .append(value.length())
          .append("\r\n")
          .append(value)
          .append("\r\n");
    }
    client.send(request.toString().getBytes(StandardCharsets.UTF_8));
    assertEquals(
        expected.toString(), client.read(expected.length()), "client " + id + ", batch " + batch);
  }

  @Test
  void aHundredClientsThatNeverReadAreCutOffWhileMemoryStaysBoundedAndOthersAreServed()
      throws Exception {
    int slowClients = 100;
    int valueBytes = 256 * 1024;
    int getsEach =
        100; // 25 MiB of replies each: far past the kernel's socket buffers and the limit
    long limit = MIB;
    try (ServerJvm server = ServerJvm.start(dir, "client-output-buffer-limit", "1mb")) {
      try (RawClient c = new RawClient(server.port())) {
        assertEquals("+OK\r\n", c.send("SET", "big", "x".repeat(valueBytes)).readLine());
        for (int i = 0;
            i < 50;
            i++) { // warm the reply path and the buffer pools before the baseline
          int replyBytes = ("$" + valueBytes + "\r\n").length() + valueBytes + 2;
          assertEquals(replyBytes, c.send("GET", "big").read(replyBytes).length());
        }
      }
      long baselineRss = server.residentBytes();
      long baselineHeap = server.infoNumber("memory", "used_memory_heap");
      MemorySampler sampler = new MemorySampler(server);
      GoodClient good = new GoodClient(server.port());
      Thread samplerThread = Thread.ofPlatform().name("rss-sampler").start(sampler);
      Thread goodThread = Thread.ofPlatform().name("good-client").start(good);
      List<Socket> slow = new ArrayList<>();
      long floodStart = System.nanoTime();
      long floodNanos;
      try {
        byte[] gets = RawClient.command("GET", "big");
        byte[] batch = new byte[gets.length * getsEach];
        for (int i = 0; i < getsEach; i++) {
          System.arraycopy(gets, 0, batch, i * gets.length, gets.length);
        }
        for (int i = 0; i < slowClients; i++) {
          Socket s = new Socket();
          s.setReceiveBufferSize(4096);
          s.connect(new InetSocketAddress("127.0.0.1", server.port()));
          slow.add(s);
          try {
            s.getOutputStream().write(batch); // and never read
          } catch (IOException cutOffAlready) {
            // the server may have closed it before all of the requests were written
          }
        }
        sampler.sampleOnce(); // at least one reading with every slow client's output at its fullest
        long disconnected =
            awaitAtLeast(server, "stats", "client_output_buffer_limit_disconnections", slowClients);
        assertEquals(slowClients, disconnected);
        floodNanos = System.nanoTime() - floodStart;
        sampler.sampleOnce();
      } finally {
        sampler.stop();
        good.stop();
        samplerThread.join();
        goodThread.join();
        for (Socket s : slow) {
          s.close();
        }
      }
      assertEquals(List.of(), good.failures);
      assertTrue(good.replies.get() > 0, "the well-behaved client got no reply during the flood");
      long rssBound = baselineRss + slowClients * (limit + 2L * valueBytes) + 128 * MIB;
      assertTrue(
          sampler.maxRss <= rssBound,
          "RSS peaked at "
              + sampler.maxRss / MIB
              + " MiB, over the bound of "
              + rssBound / MIB
              + " MiB (baseline "
              + baselineRss / MIB
              + " MiB)");
      long heapBound = baselineHeap + slowClients * (limit + 2L * valueBytes) + 128 * MIB;
      assertTrue(
          sampler.maxHeap <= heapBound,
          "heap peaked at " + sampler.maxHeap / MIB + " MiB, over " + heapBound / MIB + " MiB");
      assertTrue(sampler.samples > 0);
      System.out.printf(
          "never-reading clients: all cut off after %d ms; RSS %d MiB before, peak %d MiB (bound %d); heap peak %d MiB;"
              + " %d samples; %d good replies, longest round trip %d ms%n",
          floodNanos / 1_000_000,
          baselineRss / MIB,
          sampler.maxRss / MIB,
          rssBound / MIB,
          sampler.maxHeap / MIB,
          sampler.samples,
          good.replies.get(),
          good.maxWaitNanos / 1_000_000);
      assertHealthy(server);
    }
  }

  @Test
  void manyClientsAnnouncingGigabyteBulksGetProtocolErrorsAndCostNothing() throws Exception {
    try (ServerJvm server = ServerJvm.start(dir)) {
      long before = server.residentBytes();
      List<RawClient> bad = new ArrayList<>();
      try {
        for (int i = 0; i < 50; i++) {
          RawClient c = new RawClient(server.port());
          bad.add(c);
          c.send(
              "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1073741824\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        for (RawClient c : bad) {
          assertEquals("-ERR Protocol error: invalid bulk length\r\n", c.readLine());
          assertTrue(c.closedByPeer());
        }
      } finally {
        for (RawClient c : bad) {
          c.close();
        }
      }
      long grown = server.residentBytes() - before;
      assertTrue(
          grown < 64 * MIB, "RSS grew by " + grown / MIB + " MiB for 50 announced 1 GB bulks");
      try (RawClient c = new RawClient(server.port())) {
        assertEquals("$-1\r\n", c.send("GET", "k").readLine());
      }
      assertHealthy(server);
    }
  }

  @Test
  void noevictionRefusesWritesWithOomUntilDeletesFreeMemory() throws Exception {
    byte[] value = new byte[64 * 1024];
    java.util.Arrays.fill(value, (byte) 'n');
    String v = new String(value, StandardCharsets.US_ASCII);
    try (ServerJvm server =
            ServerJvm.start(dir, "maxmemory", "16mb", "maxmemory-policy", "noeviction");
        RawClient c = new RawClient(server.port())) {
      int written = 0;
      String reply = "";
      for (; written < 5000; written++) {
        reply = c.send("SET", "k" + written, v).readLine();
        if (!reply.equals("+OK\r\n")) {
          break;
        }
      }
      assertEquals(OOM, reply, "after " + written + " writes of 64 KiB under maxmemory 16mb");
      assertTrue(
          written * (long) value.length >= 8 * MIB, "refused after only " + written + " writes");
      assertTrue(server.infoNumber("memory", "used_memory") > 16 * MIB);
      assertEquals(OOM, c.send("APPEND", "k0", "more").readLine());
      assertEquals("$" + value.length + "\r\n", c.send("GET", "k0").readLine(), "reads go on");
      c.read(value.length + 2);
      assertEquals(":1\r\n", c.send("EXISTS", "k" + (written - 1)).readLine());
      for (int i = 0; i < written; i += 2) {
        assertEquals(":1\r\n", c.send("DEL", "k" + i).readLine(), "DEL is allowed over the limit");
      }
      String resumed = awaitReply(c, OOM, "SET", "after-delete", "v");
      assertEquals("+OK\r\n", resumed);
      assertTrue(server.infoNumber("memory", "used_memory") <= 16 * MIB);
      assertHealthy(server);
    }
  }

  @Test
  void allkeysRandomKeepsAcceptingWritesAndHoldsUsedMemoryNearTheLimit() throws Exception {
    long max = 16 * MIB;
    int valueBytes = 16 * 1024;
    String v = "r".repeat(valueBytes);
    int keys = (int) (3 * max / valueBytes); // three times what fits
    try (ServerJvm server =
            ServerJvm.start(dir, "maxmemory", "16mb", "maxmemory-policy", "allkeys-random");
        RawClient c = new RawClient(server.port())) {
      long maxUsed = 0;
      long dbsizeAtTwoThirds = 0;
      for (int i = 0; i < keys; i++) {
        assertEquals("+OK\r\n", c.send("SET", "k" + i, v).readLine(), "write " + i);
        if (i % 64 == 0) {
          maxUsed = Math.max(maxUsed, server.infoNumber("memory", "used_memory"));
        }
        if (i == 2 * keys / 3) {
          dbsizeAtTwoThirds = dbsize(c);
        }
      }
      long dbsize = dbsize(c);
      long fits = max / valueBytes;
      assertTrue(server.infoNumber("stats", "evicted_keys") > 0);
      assertTrue(
          dbsize <= fits * 5 / 4, dbsize + " keys of " + valueBytes + " B under maxmemory " + max);
      assertTrue(
          Math.abs(dbsize - dbsizeAtTwoThirds) <= fits / 5,
          "DBSIZE still moving: "
              + dbsizeAtTwoThirds
              + " at two thirds, "
              + dbsize
              + " at the end");
      assertTrue(
          maxUsed <= max * 5 / 4, "used_memory reached " + maxUsed + " against maxmemory " + max);
      System.out.printf(
          "allkeys-random: %d writes, DBSIZE %d at 2/3 and %d at the end, used_memory peak %.1f MiB%n",
          keys, dbsizeAtTwoThirds, dbsize, maxUsed / (double) MIB);
      assertHealthy(server);
    }
  }

  @Test
  void volatileTtlEvictsOnlyKeysWithAnExpiry() throws Exception {
    int valueBytes = 16 * 1024;
    String v = "t".repeat(valueBytes);
    try (ServerJvm server =
            ServerJvm.start(dir, "maxmemory", "16mb", "maxmemory-policy", "volatile-ttl");
        RawClient c = new RawClient(server.port())) {
      int persistent = 200; // 3.2 MiB that must survive
      for (int i = 0; i < persistent; i++) {
        assertEquals("+OK\r\n", c.send("SET", "p" + i, v).readLine());
      }
      int volatileKeys = (int) (2 * 16 * MIB / valueBytes);
      for (int i = 0; i < volatileKeys; i++) {
        assertEquals(
            "+OK\r\n",
            c.send("SET", "t" + i, v, "EX", Integer.toString(3600 + i)).readLine(),
            "volatile write " + i);
      }
      assertTrue(server.infoNumber("stats", "evicted_keys") > 0);
      for (int i = 0; i < persistent; i++) {
        assertEquals(
            ":1\r\n",
            c.send("EXISTS", "p" + i).readLine(),
            "key p" + i + " has no expiry and must not be evicted");
      }
      assertHealthy(server);
    }
  }

  private static long dbsize(RawClient c) throws IOException {
    String reply = c.send("DBSIZE").readLine();
    return Long.parseLong(reply.substring(1).trim());
  }

  /**
   * Repeats a command while it gets {@code refusal}; used memory is re-read every 100 ms, so a DEL
   * frees memory a moment later.
   */
  private static String awaitReply(RawClient c, String refusal, String... command)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String reply;
    do {
      reply = c.send(command).readLine();
      if (!reply.equals(refusal)) {
        return reply;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    return reply;
  }

  private static long awaitAtLeast(ServerJvm server, String section, String field, long wanted)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long value;
    while ((value = server.infoNumber(section, field)) < wanted && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return value;
  }

  /**
   * docs/server.md promises no -OOM under an evicting policy while there is something to evict.
   * Clients on both event loops pipelining 64 KiB SETs had got a few: a writer that had made room
   * decided on a fresh read, after writers on the other loop had taken that room.
   */
  @Test
  void allkeysRandomAnswersConcurrentPipelinedLargeWritesWithoutOom() throws Exception {
    int clients = 8;
    int batches = 16;
    int pipeline = 32;
    String v = "b".repeat(64 * 1024);
    try (ServerJvm server =
        ServerJvm.start(dir, "maxmemory", "16mb", "maxmemory-policy", "allkeys-random")) {
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<Future<Integer>> refused = new ArrayList<>();
      for (int t = 0; t < clients; t++) {
        int id = t;
        refused.add(
            pool.submit(
                () -> {
                  int oom = 0;
                  try (RawClient c = new RawClient(server.port())) {
                    for (int b = 0; b < batches; b++) {
                      ByteArrayOutputStream batch = new ByteArrayOutputStream();
                      for (int i = 0; i < pipeline; i++) {
                        batch.writeBytes(
                            RawClient.command(
                                "SET", "c" + id + ":" + ((b * pipeline + i) % 97), v));
                      }
                      c.send(batch.toByteArray());
                      for (int i = 0; i < pipeline; i++) {
                        String reply = c.readLine();
                        if (reply.startsWith("-OOM")) {
                          oom++;
                        } else {
                          assertEquals("+OK\r\n", reply);
                        }
                      }
                    }
                  }
                  return oom;
                }));
      }
      int ooms = 0;
      for (Future<Integer> f : refused) {
        ooms += f.get(5, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertEquals(
          0,
          ooms,
          "-OOM replies under allkeys-random, " + clients * batches * pipeline + " SETs of 64 KiB");
      assertTrue(server.infoNumber("stats", "evicted_keys") > 0);
      assertHealthy(server);
    }
  }

  private static void assertHealthy(ServerJvm server) throws IOException {
    assertTrue(server.alive(), "the server JVM died; its output:\n" + server.output());
    assertFalse(server.output().contains("OutOfMemoryError"), server.output());
    try (RawClient c = new RawClient(server.port())) {
      assertEquals("+PONG\r\n", c.send("PING").readLine());
    }
  }

  /** Reads the server's RSS and heap as often as it can until stopped, keeping the peaks. */
  private static final class MemorySampler implements Runnable {
    private final ServerJvm server;
    private volatile boolean stopped;
    volatile long maxRss;
    volatile long maxHeap;
    volatile int samples;

    MemorySampler(ServerJvm server) {
      this.server = server;
    }

    @Override
    public void run() {
      while (!stopped) {
        try {
          sampleOnce();
          Thread.sleep(10);
        } catch (IOException | InterruptedException e) {
          return;
        }
      }
    }

    synchronized void sampleOnce() throws IOException {
      maxRss = Math.max(maxRss, server.residentBytes());
      maxHeap = Math.max(maxHeap, server.infoNumber("memory", "used_memory_heap"));
      samples++;
    }

    void stop() {
      stopped = true;
    }
  }

  /**
   * A client that reads its replies, writing and reading back its own keys until stopped; each
   * reply must come.
   */
  private static final class GoodClient implements Runnable {
    private final int port;
    private volatile boolean stopped;
    final AtomicLong replies = new AtomicLong();

    /** Longest SET+GET round trip, for the test's printout only: nothing here is timed. */
    volatile long maxWaitNanos;

    private long last = System.nanoTime();
    final List<String> failures = new CopyOnWriteArrayList<>();

    GoodClient(int port) {
      this.port = port;
    }

    @Override
    public void run() {
      try (RawClient c =
          new RawClient(port)) { // its 10 s read timeout turns a stall into a failure
        for (int i = 0; !stopped; i++) {
          String value = Integer.toString(i);
          assertEquals("+OK\r\n", c.send("SET", "good", value).readLine());
          String expected = "$" + value.length() + "\r\n" + value + "\r\n";
          assertEquals(expected, c.send("GET", "good").read(expected.length()));
          replies.addAndGet(2);
          long now = System.nanoTime();
          maxWaitNanos = Math.max(maxWaitNanos, now - last);
          last = now;
        }
      } catch (Throwable e) {
        failures.add(e.toString());
      }
    }

    void stop() {
      stopped = true;
    }
  }
}
