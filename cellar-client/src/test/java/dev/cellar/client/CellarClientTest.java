package dev.cellar.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Codecs;
import dev.cellar.TypedMap;
import dev.cellar.client.transport.TcpConnector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every typed method, pipelines, futures and typed maps against a real server in this JVM. */
class CellarClientTest {
  @TempDir static Path dir;
  static TestServer server;
  static CellarClient client;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir);
    client = CellarClient.connect(server.uri());
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  @BeforeEach
  void empty() {
    client.command("FLUSHALL");
  }

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  static String s(byte[] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }

  @Test
  void stringsAndKeysRoundTrip() {
    assertEquals("PONG", client.ping());
    assertNull(client.get(b("k")));
    client.set(b("k"), b("v"));
    assertEquals("v", s(client.get(b("k"))));
    assertEquals(-1, client.ttl(b("k")));
    assertEquals(-2, client.pttl(b("absent")));

    client.set(b("t"), b("v"), Duration.ofSeconds(100));
    long pttl = client.pttl(b("t"));
    assertTrue(pttl > 90_000 && pttl <= 100_000, "pttl " + pttl);
    assertTrue(client.persist(b("t")));
    assertEquals(-1, client.pttl(b("t")));
    assertTrue(client.expire(b("t"), Duration.ofSeconds(50)));
    long ttl = client.ttl(b("t"));
    assertTrue(ttl > 40 && ttl <= 50, "ttl " + ttl);
    assertFalse(client.expire(b("absent"), Duration.ofSeconds(5)));

    client.mset(b("a"), b("1"), b("b"), b("2"));
    List<byte[]> values = client.mget(b("a"), b("nope"), b("b"));
    assertEquals("1", s(values.get(0)));
    assertNull(values.get(1));
    assertEquals("2", s(values.get(2)));
    assertEquals(2, client.exists(b("a"), b("b"), b("nope")));

    assertEquals(2, client.incr(b("a")));
    assertEquals(12, client.incrBy(b("a"), 10));
    assertEquals(11, client.decr(b("a")));
    assertEquals(-5, client.incrBy(b("fresh"), -5));
    assertEquals(4, client.append(b("b"), b("xyz")));
    assertEquals("2xyz", s(client.get(b("b"))));

    assertEquals(5, client.dbSize()); // k, t, a, b, fresh
    assertEquals(2, client.del(b("a"), b("b"), b("nope")));
    assertEquals(0, client.exists(b("a")));
    assertEquals(3, client.dbSize());
  }

  @Test
  void keysAndValuesAreBinarySafeAndLarge() {
    byte[] key = new byte[256];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) i; // CR, LF, NUL and high bytes
    }
    Random random = new Random(7);
    for (int size : new int[] {0, 1, 70_000, 600_000, 4 << 20}) {
      byte[] value = new byte[size];
      random.nextBytes(value);
      client.set(key, value);
      assertArrayEquals(value, client.get(key), "value of " + size + " bytes");
    }
  }

  @Test
  void scanKeysVisitsEveryMatchingKeyOnce() {
    try (Pipeline p = client.pipeline()) {
      for (int i = 0; i < 1000; i++) {
        p.set(b("k:" + i), b("v"));
        p.set(b("other:" + i), b("v"));
      }
    }
    List<String> seen = new ArrayList<>();
    for (byte[] key : client.scanKeys("k:*")) {
      seen.add(s(key));
    }
    assertEquals(1000, seen.size());
    assertEquals(1000, new HashSet<>(seen).size());
    assertTrue(seen.stream().allMatch(k -> k.startsWith("k:")));
  }

  @Test
  void genericCommandsDecodeWhatTheServerSends() {
    client.set(b("k"), b("hello"));
    assertEquals("hell", client.command("GETRANGE", b("k"), b("0"), b("3")).asString());
    assertEquals(5, client.command("STRLEN", b("k")).asLong());
    assertTrue(client.command("GET", b("nope")).isNull());

    Reply hello = client.command("HELLO", b("3"));
    Reply.MapReply map = assertInstanceOf(Reply.MapReply.class, hello);
    assertEquals(3, map.entries().get(new Reply.Bulk(b("proto"))).asLong());
    assertEquals("standalone", map.entries().get(new Reply.Bulk(b("mode"))).asString());

    Reply info = client.command("INFO", b("server"));
    Reply.Verbatim text = assertInstanceOf(Reply.Verbatim.class, info);
    assertEquals("txt", text.format());
    assertTrue(text.text().contains("cellar_version"), text.text());

    Reply commandInfo = client.command("COMMAND", b("INFO"), b("get"));
    Reply flags = commandInfo.asList().get(0).asList().get(2);
    assertInstanceOf(Reply.SetReply.class, flags);

    Reply stats = client.command("MEMORY", b("STATS"));
    boolean sawDouble = false;
    for (Reply v : assertInstanceOf(Reply.MapReply.class, stats).entries().values()) {
      sawDouble |= v instanceof Reply.Dbl;
    }
    assertTrue(sawDouble, "MEMORY STATS has doubles: " + stats);
  }

  @Test
  void serverErrorsCarryTheServersMessageAndLeaveTheConnectionUsable() {
    client.set(b("k"), b("not a number"));
    CellarServerException e = assertThrows(CellarServerException.class, () -> client.incr(b("k")));
    assertEquals("ERR value is not an integer or out of range", e.serverMessage());
    assertEquals("ERR", e.code());
    assertTrue(e.getMessage().startsWith("INCR: "), e.getMessage());

    CellarServerException unknown =
        assertThrows(CellarServerException.class, () -> client.command("NOSUCHCOMMAND", b("x")));
    assertTrue(unknown.serverMessage().startsWith("ERR unknown command"), unknown.getMessage());
    assertEquals("PONG", client.ping());
  }

  @Test
  void aPipelineOfAThousandCommandsIsOneWriteAndOneFlush() {
    CountingConnector counting =
        new CountingConnector(
            new TcpConnector(
                "127.0.0.1", server.port(), ClientOptions.defaults().connectTimeout()));
    try (CellarClient c = CellarClient.connect(counting, ClientOptions.defaults())) {
      int writes = counting.writes.get();
      int flushes = counting.flushes.get();
      List<Pipeline.Result<Void>> sets = new ArrayList<>();
      List<Pipeline.Result<byte[]>> gets = new ArrayList<>();
      Pipeline.Result<Long> failing;
      try (Pipeline p = c.pipeline()) {
        for (int i = 0; i < 500; i++) {
          sets.add(p.set(b("p:" + i), b("value " + i)));
        }
        failing = p.incr(b("p:0"));
        for (int i = 0; i < 499; i++) {
          gets.add(p.get(b("p:" + i)));
        }
        assertEquals(1000, p.queued());
        assertThrows(IllegalStateException.class, () -> gets.get(0).get());
        p.sync();
        assertEquals(0, p.queued());
      }
      assertEquals(1, counting.writes.get() - writes, "writes for one pipeline");
      assertEquals(1, counting.flushes.get() - flushes, "flushes for one pipeline");
      for (Pipeline.Result<Void> r : sets) {
        assertNull(r.get());
      }
      for (int i = 0; i < gets.size(); i++) {
        assertEquals("value " + i, s(gets.get(i).get()));
      }
      CellarServerException e = assertThrows(CellarServerException.class, failing::get);
      assertTrue(e.serverMessage().contains("not an integer"), e.getMessage());
    }
  }

  @Test
  void aPipelineBeyondAMegabyteGoesInMegabyteWritesAndOneFlush() {
    CountingConnector counting =
        new CountingConnector(
            new TcpConnector(
                "127.0.0.1", server.port(), ClientOptions.defaults().connectTimeout()));
    byte[] value = new byte[1000];
    new Random(3).nextBytes(value);
    try (CellarClient c = CellarClient.connect(counting, ClientOptions.defaults())) {
      int writes = counting.writes.get();
      int flushes = counting.flushes.get();
      try (Pipeline p = c.pipeline()) {
        for (int i = 0; i < 3_000; i++) { // about 3 MB of requests
          p.set(b("big:" + i), value);
        }
      }
      int batchWrites = counting.writes.get() - writes;
      assertTrue(batchWrites >= 3 && batchWrites <= 4, batchWrites + " writes");
      assertEquals(1, counting.flushes.get() - flushes);
      assertArrayEquals(value, c.get(b("big:2999")));
      assertEquals(3_000, c.dbSize());
    }
  }

  @Test
  void asyncCommandsManyInFlightFromManyThreads() throws Exception {
    int threads = 4;
    int perThread = 5_000;
    int n = threads * perThread;
    AtomicReferenceArray<CompletableFuture<Long>> incrs = new AtomicReferenceArray<>(n);
    AtomicReferenceArray<CompletableFuture<byte[]>> gets = new AtomicReferenceArray<>(n);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int base = t * perThread;
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    AsyncCommands async = client.async();
                    for (int i = base; i < base + perThread; i++) {
                      incrs.set(i, async.incr(b("counter")));
                      async.set(b("a:" + i), b("value " + i));
                      gets.set(i, async.get(b("a:" + i)));
                    }
                  }));
    }
    for (Thread w : workers) {
      w.join();
    }
    Set<Long> counts = new HashSet<>();
    for (int i = 0; i < n; i++) {
      counts.add(incrs.get(i).get());
      assertEquals("value " + i, s(gets.get(i).get()));
    }
    // Each INCR's future holds its own reply: together, every count from 1 to n once.
    assertEquals(n, counts.size());
    assertEquals(1L, counts.stream().mapToLong(Long::longValue).min().orElseThrow());
    assertEquals((long) n, counts.stream().mapToLong(Long::longValue).max().orElseThrow());
  }

  @Test
  void anIdleAsyncConnectionOutlivesItsReadTimeouts() throws Exception {
    CountingConnector counting =
        new CountingConnector(
            new TcpConnector(
                "127.0.0.1", server.port(), ClientOptions.defaults().connectTimeout()));
    ClientOptions options = ClientOptions.defaults().withResponseTimeout(Duration.ofMillis(100));
    try (CellarClient c = CellarClient.connect(counting, options)) {
      assertEquals("PONG", c.async().ping().get());
      int opened = counting.opened.get(); // the synchronous connection and the asynchronous one
      Thread.sleep(700); // several read timeouts while idle
      c.async().set(b("idle"), b("ok")).get();
      assertEquals("ok", s(c.async().get(b("idle")).get()));
      assertEquals(opened, counting.opened.get(), "the same connection served them");
    }
  }

  @Test
  void asyncRepliesMatchTheirCommands() throws Exception {
    AsyncCommands async = client.async();
    List<CompletableFuture<Void>> sets = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      sets.add(async.set(b("m:" + i), b(Integer.toString(i * 7))));
    }
    List<CompletableFuture<byte[]>> gets = new ArrayList<>();
    List<CompletableFuture<Long>> failing = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      gets.add(async.get(b("m:" + i)));
      if (i % 1000 == 0) {
        failing.add(async.incrBy(b("m:" + i), Long.MAX_VALUE));
      }
    }
    for (CompletableFuture<Void> f : sets) {
      f.get();
    }
    for (int i = 0; i < gets.size(); i++) {
      assertEquals(Integer.toString(i * 7), s(gets.get(i).get()));
    }
    for (CompletableFuture<Long> f : failing.subList(1, failing.size())) {
      var e = assertThrows(java.util.concurrent.ExecutionException.class, f::get);
      CellarServerException cause = assertInstanceOf(CellarServerException.class, e.getCause());
      assertTrue(cause.serverMessage().contains("overflow"), cause.getMessage());
    }
  }

  @Test
  void typedMapsShareTheEnginesTypedMapAndKeys() {
    TypedMap<String, Long> counts = client.map("counts", Codecs.utf8(), Codecs.longs());
    counts.put("alice", 3L);
    counts.put("bob", 4L, Duration.ofMinutes(5));
    assertEquals(3L, counts.get("alice"));
    assertTrue(counts.containsKey("bob"));
    assertNull(counts.get("carol"));
    assertTrue(client.pttl(b("counts:bob")) > 0);
    assertArrayEquals(Codecs.longs().encode(3L), client.get(b("counts:alice")));
    client.set(b("countsX"), b("not in the map"));

    Map<String, Long> seen = new HashMap<>();
    try (TypedMap.TypedCursor<String, Long> cursor = counts.scan()) {
      cursor.forEachRemaining(e -> seen.put(e.getKey(), e.getValue()));
    }
    assertEquals(Map.of("alice", 3L, "bob", 4L), seen);
    assertTrue(counts.delete("alice"));
    assertFalse(counts.delete("alice"));
    assertFalse(counts.containsKey("alice"));
  }

  @Test
  void aMapWhoseNameHasGlobCharactersScansOnlyItsOwnKeys() {
    TypedMap<String, String> odd = client.map("a*[b]?\\", Codecs.utf8(), Codecs.utf8());
    odd.put("x", "1");
    client.set(b("a*[b]?\\y"), b("not the map's: no colon"));
    client.set(b("aZ[b]?\\:z"), b("not the map's: Z for *"));
    client.set(b("a*b?\\:w"), b("not the map's: [b] is literal"));
    Set<String> keys = new HashSet<>();
    try (var cursor = odd.scan()) {
      cursor.forEachRemaining(e -> keys.add(e.getKey()));
    }
    assertEquals(Set.of("x"), keys);
  }
}
