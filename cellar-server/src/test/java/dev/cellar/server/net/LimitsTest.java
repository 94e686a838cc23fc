package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's limits and defences, through real sockets: each bad input gets a clear error, costs
 * the server nothing it cannot afford, and leaves other clients and the data untouched.
 */
class LimitsTest {
  @TempDir Path dir;
  CellarServer server;

  @BeforeEach
  void start() {
    server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", "0")
                .set("dir", dir.toString())
                .set("io-threads", "2"));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String config(String name, String value) throws IOException {
    try (RawClient c = new RawClient(server.port())) {
      return c.send("CONFIG", "SET", name, value).readLine();
    }
  }

  @Test
  void aGigabyteBulkHeaderIsAProtocolErrorAndAllocatesNothing() throws IOException {
    long heapBefore = usedHeap();
    try (RawClient bad = new RawClient(server.port());
        RawClient good = new RawClient(server.port())) {
      bad.send("*2\r\n$3\r\nGET\r\n$1073741824\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("-ERR Protocol error: invalid bulk length\r\n", bad.readLine());
      assertTrue(bad.closedByPeer());
      assertEquals("+PONG\r\n", good.send("PING").readLine());
    }
    assertTrue(usedHeap() - heapBefore < 256L << 20, "heap grew by " + (usedHeap() - heapBefore));
  }

  @Test
  void aBulkWithinTheBulkLimitButOverTheQueryBufferLimitClosesTheClient() throws IOException {
    assertEquals("+OK\r\n", config("client-query-buffer-limit", "1mb"));
    try (RawClient bad = new RawClient(server.port());
        RawClient good = new RawClient(server.port())) {
      // Announce 8 MiB (under proto-max-bulk-len, 16 MiB) and send 2 MiB of it.
      bad.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$8388608\r\n".getBytes(StandardCharsets.US_ASCII));
      try {
        bad.send(new byte[2 << 20]);
      } catch (IOException closedWhileSending) {
        // the server may close before all of it is sent
      }
      assertTrue(bad.closedByPeer());
      assertEquals("+PONG\r\n", good.send("PING").readLine());
      assertEquals("$-1\r\n", good.send("GET", "k").readLine());
    }
  }

  @Test
  void aLargeRequestsQueryBufferGrowsNoLargerThanTheQueryBufferLimit() throws Exception {
    assertEquals("+OK\r\n", config("client-query-buffer-limit", "40mb"));
    assertEquals("+OK\r\n", config("maxmemory-clients", "0"));
    int value = 13 << 20;
    java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
    wire.writeBytes("*7\r\n$4\r\nMSET\r\n".getBytes(StandardCharsets.US_ASCII));
    for (int i = 1; i <= 3; i++) {
      wire.writeBytes(
          ("$2\r\nk" + i + "\r\n$" + value + "\r\n").getBytes(StandardCharsets.US_ASCII));
      wire.writeBytes(new byte[value]);
      wire.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    byte[] request = wire.toByteArray(); // 39 MiB and a few bytes: within the 40 MiB limit
    try (RawClient big = new RawClient(server.port());
        RawClient watcher = new RawClient(server.port())) {
      String id = big.send("CLIENT", "ID").readLine().substring(1).trim();
      big.send(java.util.Arrays.copyOf(request, request.length - 1024));
      // Doubling alone took the buffer past the limit (to 49 MiB, doubling from a 49 KiB read).
      long held = 0;
      for (int i = 0; i < 200 && held < 38L << 20; i++) {
        sleep(50);
        held = totMem(watcher, id);
      }
      assertTrue(held >= 38L << 20, "the server never buffered the request: tot-mem " + held);
      assertTrue(
          held <= (40L << 20) + (64 << 10),
          "a 39 MiB request under a 40 MiB limit holds " + held + " bytes of buffers");
      big.send(java.util.Arrays.copyOfRange(request, request.length - 1024, request.length));
      assertEquals("+OK\r\n", big.readLine());
      assertEquals(":" + value + "\r\n", big.send("STRLEN", "k3").readLine());
    }
  }

  /** {@code tot-mem} of client {@code id} in {@code CLIENT LIST}. */
  private static long totMem(RawClient c, String id) throws IOException {
    String header = c.send("CLIENT", "LIST").readLine();
    String list = c.read(Integer.parseInt(header.substring(1).trim()) + 2);
    for (String line : list.split("\n")) {
      if (line.startsWith("id=" + id + " ")) {
        return Long.parseLong(line.replaceAll(".* tot-mem=(\\d+).*", "$1").trim());
      }
    }
    throw new AssertionError("client " + id + " is not in CLIENT LIST: " + list);
  }

  @Test
  void garbageIsAProtocolErrorThatClosesOnlyThatConnection() throws IOException {
    try (RawClient bad = new RawClient(server.port());
        RawClient good = new RawClient(server.port())) {
      good.send("SET", "kept", "1").readLine();
      bad.send("*x\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("-ERR Protocol error: invalid multibulk length\r\n", bad.readLine());
      assertTrue(bad.closedByPeer());
      assertEquals("$1\r\n1\r\n", good.send("GET", "kept").read(7));
    }
    try (RawClient bad = new RawClient(server.port())) {
      bad.send("*1\r\n+PING\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("-ERR Protocol error: expected '$', got '+'\r\n", bad.readLine());
      assertTrue(bad.closedByPeer());
    }
  }

  @Test
  void aClientThatNeverReadsIsCutOffAtTheOutputLimitAndOthersGoOn() throws IOException {
    assertEquals("+OK\r\n", config("client-output-buffer-limit", "1mb"));
    try (RawClient c = new RawClient(server.port())) {
      c.send("SET", "big", "x".repeat(100_000)).readLine();
    }
    try (Socket slow = new Socket("127.0.0.1", server.port());
        RawClient good = new RawClient(server.port())) {
      slow.setReceiveBufferSize(4096);
      byte[] get = RawClient.command("GET", "big");
      boolean cut = false;
      try {
        for (int i = 0; i < 2000; i++) {
          slow.getOutputStream().write(get); // ~200 MB of replies if all were kept
        }
      } catch (IOException e) {
        cut = true;
      }
      assertEquals("+PONG\r\n", good.send("PING").readLine());
      long disconnects = 0;
      for (int attempt = 0; attempt < 100 && disconnects == 0; attempt++) {
        disconnects = server.context().stats().outputLimitDisconnects.sum();
        sleep(50);
      }
      assertTrue(cut || disconnects > 0, "the slow client was not disconnected");
      assertEquals(1, disconnects);
    }
  }

  @Test
  void maxClientsRefusesTheExtraConnectionWithRedisError() throws IOException {
    assertEquals("+OK\r\n", config("maxclients", "2"));
    // The CONFIG connection counts until the server has seen it close, as in Redis; it must be
    // gone, or it takes one of the two places.
    for (int attempt = 0; attempt < 100 && server.context().clients().count() > 0; attempt++) {
      sleep(20);
    }
    assertEquals(0, server.context().clients().count(), "the CONFIG connection is still counted");
    try (RawClient a = new RawClient(server.port());
        RawClient b = new RawClient(server.port())) {
      assertEquals("+PONG\r\n", a.send("PING").readLine());
      assertEquals("+PONG\r\n", b.send("PING").readLine());
      try (RawClient c = new RawClient(server.port())) {
        assertEquals("-ERR max number of clients reached\r\n", c.readLine());
        assertTrue(c.closedByPeer());
      }
    }
  }

  /**
   * A random draw with repeats whose reply could not fit the heap is refused before the first draw,
   * and the connection's event loop goes on serving: a count of -(2^63 - 1) once kept it drawing
   * for minutes. Redis would try to send it all.
   */
  @Test
  void aRandomDrawTooLargeToAnswerIsRefusedAtOnce() throws IOException {
    try (RawClient c = new RawClient(server.port())) {
      c.send("SADD", "s", "a").readLine();
      c.send("HSET", "h", "f", "v").readLine();
      c.send("ZADD", "z", "1", "a").readLine();
      for (String[] huge :
          new String[][] {
            {"SRANDMEMBER", "s", "-9223372036854775807"},
            {"HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"},
            {"ZRANDMEMBER", "z", "-100000000"}
          }) {
        String reply = c.send(huge).readLine();
        assertTrue(reply.startsWith("-ERR " + huge[0] + " would gather more than"), reply);
      }
      assertEquals("+PONG\r\n", c.send("PING").readLine());
    }
  }

  @Test
  void oversizedKeyIsAnErrorAndTheConnectionStaysUsable() throws IOException {
    try (RawClient c = new RawClient(server.port())) {
      String reply = c.send("SET", "k".repeat(70_000), "v").readLine();
      assertTrue(reply.startsWith("-ERR key length 70000 > max 65536"), reply);
      assertEquals("+PONG\r\n", c.send("PING").readLine());
    }
  }

  @Test
  void pipelinedBatchIsAnsweredInOrder() throws IOException {
    StringBuilder batch = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      batch.append(
          new String(
              RawClient.command("SET", "p" + i, Integer.toString(i)), StandardCharsets.UTF_8));
      batch.append(new String(RawClient.command("GET", "p" + i), StandardCharsets.UTF_8));
    }
    try (RawClient c = new RawClient(server.port())) {
      c.send(batch.toString().getBytes(StandardCharsets.UTF_8));
      for (int i = 0; i < 1000; i++) {
        assertEquals("+OK\r\n", c.readLine());
        String value = Integer.toString(i);
        assertEquals("$" + value.length() + "\r\n", c.readLine());
        assertEquals(value + "\r\n", c.readLine());
      }
    }
  }

  @Test
  void inlineCommandsWorkAsWithTelnet() throws IOException {
    try (RawClient c = new RawClient(server.port())) {
      c.send(
          "SET greeting \"hello world\"\r\nGET greeting\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("+OK\r\n", c.readLine());
      assertEquals("$11\r\nhello world\r\n", c.read(18));
    }
  }

  @Test
  void passwordGatesEverythingButAuthHelloQuit() throws IOException {
    assertEquals("+OK\r\n", config("requirepass", "s3cret"));
    try (RawClient c = new RawClient(server.port())) {
      assertEquals("-NOAUTH Authentication required.\r\n", c.send("GET", "k").readLine());
      assertEquals(
          "-WRONGPASS invalid username-password pair or user is disabled.\r\n",
          c.send("AUTH", "nope").readLine());
      assertEquals("+OK\r\n", c.send("AUTH", "s3cret").readLine());
      assertEquals("$-1\r\n", c.send("GET", "k").readLine());
      c.send("CONFIG", "GET", "requirepass");
      StringBuilder config = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        config.append(c.readLine());
      }
      assertEquals("*2\r\n$11\r\nrequirepass\r\n$10\r\n<redacted>\r\n", config.toString());
    }
  }

  @Test
  void protectedModeRefusesAPublicBindWithoutPassword() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                CellarServer.start(
                    new ServerConfig()
                        .set("port", "0")
                        .set("http-port", "0")
                        .set("bind", "0.0.0.0")
                        .set("dir", dir.resolve("other").toString())));
    assertTrue(e.getMessage().contains("--protected-mode no"), e.getMessage());
  }

  @Test
  void manyConnectionsPipeliningAtOnce() throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < 200; t++) {
      int id = t;
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (RawClient c = new RawClient(server.port())) {
                      StringBuilder batch = new StringBuilder();
                      for (int i = 0; i < 20; i++) {
                        batch.append(
                            new String(
                                RawClient.command("INCR", "counter"), StandardCharsets.UTF_8));
                        batch.append(
                            new String(
                                RawClient.command("SET", "c" + id + ":" + i, "v"),
                                StandardCharsets.UTF_8));
                      }
                      c.send(batch.toString().getBytes(StandardCharsets.UTF_8));
                      for (int i = 0; i < 20; i++) {
                        assertTrue(c.readLine().startsWith(":"));
                        assertEquals("+OK\r\n", c.readLine());
                      }
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(List.of(), failures);
    try (RawClient c = new RawClient(server.port())) {
      // INCR is atomic across event loops: 200 clients x 20 increments.
      assertEquals("$4\r\n4000\r\n", c.send("GET", "counter").read(10));
    }
  }

  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
