package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.ipc.Discovery;
import dev.cellar.ipc.IpcDescriptor;
import dev.cellar.ipc.IpcException;
import dev.cellar.ipc.ProcessIdentity;
import dev.cellar.ipc.RingChannel;
import dev.cellar.ipc.RingFile;
import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-memory endpoint with real rings, a real server and, for the faults, a client in a JVM
 * of its own killed with SIGKILL: the same commands and limits as over TCP, back-pressure both
 * ways, and every way a connection can end.
 */
class ShmEndpointTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @TempDir Path dir;
  CellarServer server;

  private CellarServer start(String... settings) {
    ServerConfig config =
        new ServerConfig().set("port", "0").set("http-port", "0").set("dir", dir.toString());
    for (int i = 0; i < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    server = CellarServer.start(config);
    return server;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Sends RESP commands and reads replies over one channel. */
  private static final class Client implements AutoCloseable {
    final RingChannel channel;
    private final byte[] buffer = new byte[64 * 1024];
    private int start;
    private int end;

    Client(Path discovery, int capacity) throws Exception {
      channel = RingChannel.connect(discovery, capacity, 10 * SECOND);
    }

    Client send(String... args) {
      byte[] bytes = RawClient.command(args);
      channel.write(bytes, 0, bytes.length);
      return this;
    }

    /** One line of reply (up to CRLF, included). */
    String line() {
      StringBuilder s = new StringBuilder();
      while (true) {
        if (start == end) {
          start = 0;
          end = channel.read(buffer, 0, buffer.length);
        }
        char c = (char) (buffer[start++] & 0xff);
        s.append(c);
        if (c == '\n' && s.length() >= 2 && s.charAt(s.length() - 2) == '\r') {
          return s.toString();
        }
      }
    }

    @Override
    public void close() {
      channel.close();
    }
  }

  /** A bulk reply read whole. */
  private static String bulk(RawClient c) throws Exception {
    String header = c.readLine();
    assertTrue(header.startsWith("$"), header);
    int length = Integer.parseInt(header.substring(1).trim());
    String body = c.read(length + 2);
    return body.substring(0, length);
  }

  private Path discovery() {
    Path p = server.ipcDiscovery();
    assertNotNull(p, "ipc is on by default");
    return p;
  }

  private int connectedClients() throws Exception {
    try (RawClient c = new RawClient(server.port())) {
      String info = bulk(c.send("INFO", "clients"));
      for (String line : info.split("\r\n")) {
        if (line.startsWith("connected_clients:")) {
          // Less the connection that asks.
          return Integer.parseInt(line.substring("connected_clients:".length()).trim()) - 1;
        }
      }
      fail("no connected_clients in " + info);
      return -1;
    }
  }

  @Test
  void commandsOverSharedMemorySeeAndAreSeenByTcp() throws Exception {
    start();
    try (Client c = new Client(discovery(), 64 * 1024);
        RawClient tcp = new RawClient(server.port())) {
      assertEquals("+PONG\r\n", c.send("PING").line());
      assertEquals("+OK\r\n", c.send("SET", "k", "over shared memory").line());
      assertEquals("over shared memory", bulk(tcp.send("GET", "k")));
      assertEquals("+OK\r\n", tcp.send("SET", "t", "over tcp").readLine());
      assertEquals("$8\r\n", c.send("GET", "t").line());
      assertEquals("over tcp\r\n", c.line());
      assertEquals(":1\r\n", c.send("INCR", "n").line());
      assertTrue(c.send("CLIENT", "LIST").line().startsWith("$"));
      String list = c.line();
      assertTrue(list.contains("addr=shm:" + ProcessHandle.current().pid()), list);
      assertEquals(
          "-ERR unknown command 'NOPE', with args beginning with: \r\n", c.send("NOPE").line());
    }
  }

  @Test
  void pubSubWorksOverSharedMemoryBothWays() throws Exception {
    start();
    try (Client c = new Client(discovery(), 64 * 1024);
        RawClient tcp = new RawClient(server.port())) {
      c.send("SUBSCRIBE", "news");
      assertEquals("*3\r\n", c.line());
      assertEquals("$9\r\n", c.line());
      assertEquals("subscribe\r\n", c.line());
      assertEquals("$4\r\n", c.line());
      assertEquals("news\r\n", c.line());
      assertEquals(":1\r\n", c.line());
      assertEquals(":1\r\n", tcp.send("PUBLISH", "news", "from tcp").readLine());
      String message = "";
      for (int i = 0; i < 7; i++) {
        message += c.line();
      }
      assertEquals("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$8\r\nfrom tcp\r\n", message);
      // A shared-memory publisher reaches a TCP subscriber.
      try (Client publisher = new Client(discovery(), 64 * 1024)) {
        tcp.send("SUBSCRIBE", "back");
        for (int i = 0; i < 6; i++) {
          tcp.readLine();
        }
        assertEquals(":1\r\n", publisher.send("PUBLISH", "back", "from shm").line());
        assertEquals(
            "*3\r\n$7\r\nmessage\r\n$4\r\nback\r\n$8\r\nfrom shm\r\n",
            tcp.read("*3\r\n$7\r\nmessage\r\n$4\r\nback\r\n$8\r\nfrom shm\r\n".length()));
      }
    }
  }

  /**
   * With one event loop and no HTTP, the shared-memory agent still runs commands on a thread of its
   * own: the key locks must lock, or increments from both sides are lost.
   */
  @Test
  void oneEventLoopAndAnAgentDoNotLoseIncrements() throws Exception {
    start("threads", "1", "http-port", "0");
    int batches = 100;
    int batch = 200;
    byte[] incrs = new byte[0];
    for (int i = 0; i < batch; i++) {
      byte[] one = RawClient.command("INCR", "n");
      byte[] joined = java.util.Arrays.copyOf(incrs, incrs.length + one.length);
      System.arraycopy(one, 0, joined, incrs.length, one.length);
      incrs = joined;
    }
    byte[] pipeline = incrs;
    try (Client shm = new Client(discovery(), 64 * 1024);
        RawClient tcp = new RawClient(server.port())) {
      Thread other =
          new Thread(
              () -> {
                for (int b = 0; b < batches; b++) {
                  shm.channel.write(pipeline, 0, pipeline.length);
                  for (int i = 0; i < batch; i++) {
                    shm.line();
                  }
                }
              });
      other.start();
      for (int b = 0; b < batches; b++) {
        tcp.send(pipeline);
        for (int i = 0; i < batch; i++) {
          tcp.readLine();
        }
      }
      other.join();
      assertEquals(Integer.toString(2 * batches * batch), bulk(tcp.send("GET", "n")));
    }
  }

  @Test
  void aLongPipelineThroughSmallRingsIsAnsweredInFullBothWaysBlocked() throws Exception {
    start();
    int n = 20_000;
    try (Client c = new Client(discovery(), 4096)) {
      StringBuilder value = new StringBuilder();
      for (int i = 0; i < 40; i++) {
        value.append('v');
      }
      for (int i = 0; i < n; i++) {
        c.send("SET", "key:" + i, value.toString()); // never reading: the rings fill both ways
      }
      for (int i = 0; i < n; i++) {
        assertEquals("+OK\r\n", c.line(), "reply " + i);
      }
      c.send("DBSIZE");
      assertEquals(":" + n + "\r\n", c.line());
    }
  }

  /**
   * GET and MGET write their values straight into the response ring, other replies go through the
   * reply buffer: in a long pipeline through small rings, with values from empty to larger than
   * half a ring (those take the buffer's way), every reply comes back whole and in order.
   */
  @Test
  void valuesWrittenStraightIntoTheRingKeepTheirPlaceAmongOtherReplies() throws Exception {
    start();
    java.util.Random random = new java.util.Random(11);
    int keys = 200;
    String[] values = new String[keys];
    try (Client c = new Client(discovery(), 4096)) {
      for (int i = 0; i < keys; i++) {
        int length = i % 50 == 0 ? 2048 + random.nextInt(3000) : random.nextInt(300);
        values[i] = "x".repeat(length);
        c.send("SET", "k" + i, values[i]);
      }
      for (int i = 0; i < keys; i++) {
        assertEquals("+OK\r\n", c.line());
      }
      List<String> expected = new java.util.ArrayList<>();
      for (int round = 0; round < 3_000; round++) {
        int k = random.nextInt(keys + 20); // some keys absent
        switch (random.nextInt(4)) {
          case 3 -> {
            int other = random.nextInt(keys + 20);
            c.send("MGET", "k" + k, "k" + other);
            expected.add("*2\r\n");
            for (int key : new int[] {k, other}) {
              expected.add(key < keys ? "$" + values[key].length() + "\r\n" : "$-1\r\n");
              if (key < keys) {
                expected.add(values[key] + "\r\n");
              }
            }
          }
          case 0 -> {
            c.send("GET", "k" + k);
            expected.add(k < keys ? "$" + values[k].length() + "\r\n" : "$-1\r\n");
            if (k < keys) {
              expected.add(values[k] + "\r\n");
            }
          }
          case 1 -> {
            c.send("INCR", "counter");
            expected.add(null); // an integer, checked by its type
          }
          default -> {
            c.send("PING");
            expected.add("+PONG\r\n");
          }
        }
      }
      long counter = 0;
      for (String want : expected) {
        String got = c.line();
        if (want == null) {
          assertEquals(":" + ++counter + "\r\n", got);
        } else {
          assertEquals(want, got);
        }
      }
    }
  }

  @Test
  void aReplyThatWouldTakeTheClientsBuffersOverTheirLimitIsRefusedAsOverTcp() throws Exception {
    start();
    try (RawClient tcp = new RawClient(server.port());
        Client c = new Client(discovery(), 64 * 1024)) {
      assertEquals("+OK\r\n", tcp.send("SET", "big", "b".repeat(3 << 20)).readLine());
      assertEquals("+OK\r\n", tcp.send("CONFIG", "SET", "maxmemory-clients", "1mb").readLine());
      String refused = c.send("GET", "big").line();
      assertTrue(refused.startsWith("-ERR reply of more than"), refused);
      assertEquals("+PONG\r\n", c.send("PING").line(), "the client stays");
    }
  }

  @Test
  void requirepassAppliesAsOverTcp() throws Exception {
    start("requirepass", "s3cret");
    try (Client c = new Client(discovery(), 64 * 1024)) {
      assertEquals("-NOAUTH Authentication required.\r\n", c.send("GET", "k").line());
      assertTrue(c.send("AUTH", "wrong").line().startsWith("-WRONGPASS"));
      assertEquals("+OK\r\n", c.send("AUTH", "s3cret").line());
      assertEquals("$-1\r\n", c.send("GET", "k").line());
    }
  }

  @Test
  void malformedRespIsAProtocolErrorAndTheClientIsClosedWithTheReason() throws Exception {
    start();
    try (Client c = new Client(discovery(), 64 * 1024)) {
      byte[] bad = "*2\r\n$3\r\nGET\r\n$x\r\n".getBytes(StandardCharsets.US_ASCII);
      c.channel.write(bad, 0, bad.length);
      assertTrue(c.line().startsWith("-ERR Protocol error"));
      IpcException closed = assertThrows(IpcException.class, c::line);
      assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }
    assertEquals(0, connectedClients());
  }

  @Test
  void aRingWithGarbageIsClosedWithItsReasonAndOthersGoOn() throws Exception {
    start();
    try (Discovery d = Discovery.open(dir)) {
      Path ring = d.ringDirectory().resolve("garbage.ring");
      try (RingFile file = RingFile.create(ring, 4096, ProcessIdentity.current());
          Client good = new Client(discovery(), 4096)) {
        assertTrue(d.requestConnection("garbage.ring"));
        assertEquals(
            IpcDescriptor.RING_ATTACHED,
            file.awaitStateChange(IpcDescriptor.RING_OFFERED, 10 * SECOND));
        var requests = file.requests(d.doorbell(file.agent()));
        // A tail far past the head: the server must not read a byte of it.
        requests.control().set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, 1L << 40);
        d.doorbell(file.agent()).ring();
        assertEquals(
            IpcDescriptor.RING_CLOSED_BY_SERVER,
            file.awaitStateChange(IpcDescriptor.RING_ATTACHED, 10 * SECOND));
        assertTrue(file.reason().contains("tail"), file.reason());
        long deadline = System.nanoTime() + 5 * SECOND;
        while (Files.exists(ring)) {
          assertTrue(System.nanoTime() < deadline, "the server deleted the ring file");
          Thread.sleep(10);
        }
        assertEquals("+PONG\r\n", good.send("PING").line());
      }
    }
  }

  /**
   * A ring file whose positions are off the frame grid before the server maps it: refused with the
   * reason, and the agent serves its other clients (it used to die on the read of a header across
   * the ring's end, the ring fuzzer's first finding).
   */
  @Test
  void aRingOfferedWithPositionsOffTheFrameGridIsRefusedAndTheAgentGoesOn() throws Exception {
    start();
    try (Discovery d = Discovery.open(dir);
        Client good = new Client(discovery(), 4096)) {
      Path ring = d.ringDirectory().resolve("unaligned.ring");
      try (RingFile file = RingFile.create(ring, 4096, ProcessIdentity.current())) {
        var control = file.requests(d.doorbell(0)).control();
        control.set(ValueLayout.JAVA_LONG, IpcDescriptor.HEAD_OFFSET, 4095L);
        control.set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, 4095L);
        assertTrue(d.requestConnection("unaligned.ring"));
        assertEquals(
            IpcDescriptor.RING_REFUSED,
            file.awaitStateChange(IpcDescriptor.RING_OFFERED, 10 * SECOND));
        assertTrue(file.reason().contains("aligned"), file.reason());
      }
      assertEquals("+PONG\r\n", good.send("PING").line());
      try (Client another = new Client(discovery(), 4096)) {
        assertEquals("+PONG\r\n", another.send("PING").line());
      }
    }
  }

  @Test
  void aClientWhoseHeartbeatStopsIsClosedAfterTheTimeout() throws Exception {
    start("ipc-client-timeout", "1");
    try (Discovery d = Discovery.open(dir)) {
      Path ring = d.ringDirectory().resolve("silent.ring");
      // Alive (this process) but never stamping its heartbeat: a hung client.
      try (RingFile file = RingFile.create(ring, 4096, ProcessIdentity.current())) {
        assertTrue(d.requestConnection("silent.ring"));
        assertEquals(
            IpcDescriptor.RING_ATTACHED,
            file.awaitStateChange(IpcDescriptor.RING_OFFERED, 10 * SECOND));
        long attached = System.nanoTime();
        assertEquals(
            IpcDescriptor.RING_CLOSED_BY_SERVER,
            file.awaitStateChange(IpcDescriptor.RING_ATTACHED, 10 * SECOND));
        assertTrue(
            System.nanoTime() - attached >= SECOND / 2, "not before its heartbeat was stale");
        assertTrue(file.reason().contains("heartbeat"), file.reason());
      }
    }
  }

  @Test
  void aClientKilledMidRequestIsReleased() throws Exception {
    start();
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child =
        new ProcessBuilder(
                List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ShmClientMain.class.getName(),
                    discovery().toString()))
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("sent", out.readLine());
      assertEquals(1, connectedClients());
    } finally {
      child.destroyForcibly().waitFor(); // SIGKILL, half a SET in the server's buffer
    }
    long deadline = System.nanoTime() + 10 * SECOND;
    while (connectedClients() != 0) {
      assertTrue(System.nanoTime() < deadline, "the dead client was never released");
      Thread.sleep(50);
    }
    try (Discovery d = Discovery.open(dir);
        var files = Files.list(d.ringDirectory())) {
      assertEquals(
          List.of("owner"),
          files.map(f -> f.getFileName().toString()).toList(),
          "its ring file was deleted");
    }
    try (RawClient tcp = new RawClient(server.port())) {
      assertEquals("$-1\r\n", tcp.send("GET", "k").readLine(), "the half request did nothing");
    }
  }

  @Test
  void aStoppedServerEndsItsClientsWithAReasonAndRemovesItsFiles() throws Exception {
    start();
    Path discovery = discovery();
    Path ringDirectory;
    try (Discovery d = Discovery.open(dir)) {
      ringDirectory = d.ringDirectory();
    }
    try (Client c = new Client(discovery, 4096)) {
      assertEquals("+PONG\r\n", c.send("PING").line());
      server.close();
      server = null;
      IpcException e = assertThrows(IpcException.class, c::line);
      assertTrue(e.getMessage().contains("stopped"), e.getMessage());
    }
    assertFalse(Files.exists(discovery));
    assertFalse(Files.exists(ringDirectory));
    assertThrows(Exception.class, () -> RingChannel.connect(discovery, 4096, SECOND));
  }

  @Test
  void ringsACrashedServerLeftAreRemovedAtStart() throws Exception {
    start();
    Path ringDirectory;
    try (Discovery d = Discovery.open(dir)) {
      ringDirectory = d.ringDirectory();
    }
    server.close();
    server = null;
    Files.createDirectories(ringDirectory);
    Files.write(ringDirectory.resolve("c1-stale.ring"), new byte[4096]);
    start();
    try (var files = Files.list(ringDirectory)) {
      assertEquals(List.of("owner"), files.map(f -> f.getFileName().toString()).toList());
    }
  }

  @Test
  void ringDirectoriesOfServersThatAreGoneAreSweptAtStart() throws Exception {
    Path shm = Path.of("/dev/shm");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(shm), "no /dev/shm here");
    // A process that has ended: its pid names nobody now (or another process, of another start).
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    long startMillis = ended.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(1L);
    Path abandoned = Files.createDirectory(shm.resolve("cellar-test-" + System.nanoTime()));
    Path alive = Files.createDirectory(shm.resolve("cellar-test-" + System.nanoTime()));
    try {
      Files.writeString(abandoned.resolve("owner"), ended.pid() + " " + startMillis + "\n");
      Files.write(abandoned.resolve("c1-x.ring"), new byte[4096]);
      ProcessIdentity self = ProcessIdentity.current();
      Files.writeString(alive.resolve("owner"), self.pid() + " " + self.startMillis() + "\n");
      start();
      assertFalse(Files.exists(abandoned), "the gone server's rings were removed");
      assertTrue(Files.exists(alive), "a running server's were not");
      try (Discovery d = Discovery.open(dir)) {
        assertTrue(Files.exists(d.ringDirectory().resolve("owner")), "ours names us");
      }
    } finally {
      for (Path p : new Path[] {abandoned, alive}) {
        if (Files.exists(p)) {
          try (var files = Files.list(p)) {
            for (Path f : files.toList()) {
              Files.delete(f);
            }
          }
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void ipcNoStartsNoEndpointAndSaysSo() throws Exception {
    start("ipc", "no");
    assertNull(server.ipcDiscovery());
    assertFalse(Files.exists(dir.resolve(IpcDescriptor.DISCOVERY_FILE)));
    try (RawClient tcp = new RawClient(server.port())) {
      assertTrue(tcp.send("CELLAR.IPC").readLine().startsWith("-ERR shared memory is off"));
    }
  }

  @Test
  void cellarIpcNamesTheDiscoveryFileAndTheServingProcess() throws Exception {
    start();
    try (RawClient tcp = new RawClient(server.port())) {
      assertEquals("*6\r\n", tcp.send("CELLAR.IPC").readLine());
      StringBuilder reply = new StringBuilder();
      for (int i = 0; i < 6; i++) {
        String line = tcp.readLine();
        reply.append(line.startsWith("$") ? tcp.readLine() : line);
      }
      assertTrue(reply.toString().contains(discovery().toString()), reply.toString());
      assertTrue(
          reply.toString().contains(":" + ProcessHandle.current().pid() + "\r\n"),
          reply.toString());
    }
  }
}
