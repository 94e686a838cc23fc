package dev.cellar.server.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.server.testsupport.ServerMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.SetParams;

/**
 * The server as users run it, in its own JVM ({@link ServerMain}): write through a real client,
 * stop it, start it again on the same directory, and check what came back.
 *
 * <ul>
 *   <li>SIGTERM (and {@code SHUTDOWN}) in every fsync mode: the server syncs and checkpoints on the
 *       way out, so every write it answered must be there, with its TTL.
 *   <li>SIGKILL while four clients write: nothing runs on the way out, so this checks the
 *       durability promise itself (docs/durability.md): a process crash loses no acknowledged
 *       write, and no write comes back that was neither acknowledged nor in flight.
 * </ul>
 */
class RestartTest {
  private static final long START_TIMEOUT_SECONDS = 60;

  @TempDir Path dir;
  private final AtomicLong starts = new AtomicLong();

  /** A server in a child JVM. */
  private record Child(Process process, int port, Path log) {}

  // ------------------------------------------------------------------ SIGTERM and SHUTDOWN

  /**
   * Rounds of writes, each ended by SIGTERM under one fsync mode and checked (with everything
   * before it) by the next start, which uses the next mode; the last round ends with SHUTDOWN.
   */
  @Test
  void everyWriteSurvivesSigtermInEveryFsyncModeAndShutdown() throws Exception {
    Map<String, String> expected = new HashMap<>();
    List<String> modes = List.of("always", "everysec", "no");
    Child child = start(modes.get(0));
    for (int round = 0; round < modes.size(); round++) {
      try (Jedis jedis = client(child)) {
        writeMixedWorkload(jedis, "r" + round + ":", expected);
      }
      child.process().destroy(); // SIGTERM
      assertExited(child, 143);
      child = start(modes.get((round + 1) % modes.size()));
      try (Jedis jedis = client(child)) {
        verify(jedis, expected, "after SIGTERM under appendfsync " + modes.get(round));
      }
    }
    try (Jedis jedis = client(child)) {
      writeMixedWorkload(jedis, "last:", expected);
      jedis.shutdown(); // no reply: the server closes the connection once it has saved
    }
    assertExited(child, 0);
    child = start("everysec");
    try (Jedis jedis = client(child)) {
      verify(jedis, expected, "after SHUTDOWN");
    } finally {
      stop(child);
    }
  }

  /**
   * Plain, expiring, overwritten, deleted, counted keys under {@code prefix}, and overwrites and
   * deletes of earlier rounds' keys; records in {@code expected} what the store must hold (null:
   * absent). Keys with a TTL contain {@code ttl:}. Pipelined: every write is answered before this
   * returns.
   */
  private static void writeMixedWorkload(Jedis jedis, String prefix, Map<String, String> expected) {
    List<String> earlier = new ArrayList<>(expected.keySet());
    Pipeline p = jedis.pipelined();
    for (int i = 0; i < 500; i++) {
      set(p, expected, prefix + "plain:" + i, "value-" + i);
    }
    for (int i = 0; i < 100; i++) {
      p.set(prefix + "ttl:" + i, "expiring-" + i, new SetParams().ex(3600));
      expected.put(prefix + "ttl:" + i, "expiring-" + i);
    }
    for (int i = 0; i < 500; i += 5) {
      set(p, expected, prefix + "plain:" + i, "overwritten-" + i);
    }
    for (int i = 1; i < 500; i += 7) {
      p.del(prefix + "plain:" + i);
      expected.put(prefix + "plain:" + i, null);
    }
    for (int i = 0; i < 250; i++) {
      p.incr(prefix + "counter");
    }
    expected.put(prefix + "counter", "250");
    p.set(prefix + "gone-soon", "v", new SetParams().px(1));
    expected.put(prefix + "gone-soon", null);
    for (int i = 0; i < earlier.size(); i += 11) {
      String key = earlier.get(i);
      if (key.contains("ttl:") || key.endsWith("counter")) {
        continue;
      }
      if (i % 2 == 0) {
        set(p, expected, key, "rewritten-by-" + prefix);
      } else {
        p.del(key);
        expected.put(key, null);
      }
    }
    p.sync();
  }

  private static void set(Pipeline p, Map<String, String> expected, String key, String value) {
    p.set(key, value);
    expected.put(key, value);
  }

  /** Every expected value (and TTL) is there, and no other key. */
  private static void verify(Jedis jedis, Map<String, String> expected, String when) {
    List<String> keys = new ArrayList<>(expected.keySet());
    Pipeline p = jedis.pipelined();
    List<Response<String>> values = new ArrayList<>();
    List<Response<Long>> ttls = new ArrayList<>();
    for (String key : keys) {
      values.add(p.get(key));
      ttls.add(p.ttl(key));
    }
    p.sync();
    long live = 0;
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      String want = expected.get(key);
      assertEquals(want, values.get(i).get(), key + " " + when);
      long ttl = ttls.get(i).get();
      if (want == null) {
        assertEquals(-2, ttl, key + " " + when);
      } else if (key.contains("ttl:")) {
        live++;
        assertTrue(ttl > 3000 && ttl <= 3600, key + " lost its TTL " + when + ": " + ttl);
      } else {
        live++;
        assertEquals(-1, ttl, key + " gained a TTL " + when);
      }
    }
    assertEquals(live, jedis.keys("*").size(), "keys never written, or not deleted, " + when);
  }

  // ------------------------------------------------------------------ SIGKILL

  /**
   * Four clients write (each cycling over its own keys with rising versions) until SIGKILL; the
   * next start, under the other fsync mode, must hold for every key its last acknowledged version
   * or the one in flight at the kill, and nothing else. Two rounds: killed under {@code always},
   * then under {@code everysec}; the second check covers the first round's keys too.
   */
  @Test
  void sigkillLosesNoAcknowledgedWrite() throws Exception {
    Map<String, Long> acked = new ConcurrentHashMap<>();
    Map<String, Long> inFlight = new ConcurrentHashMap<>();
    Child child = start("always");
    killWhileWriting(child, "a", acked, inFlight);
    child = start("everysec");
    try (Jedis jedis = client(child)) {
      verifyAcknowledged(jedis, acked, inFlight, "after SIGKILL under appendfsync always");
    }
    killWhileWriting(child, "e", acked, inFlight);
    child = start("always");
    try (Jedis jedis = client(child)) {
      verifyAcknowledged(jedis, acked, inFlight, "after SIGKILL under appendfsync everysec");
    } finally {
      stop(child);
    }
  }

  /**
   * Clients write MULTI/EXEC transactions (each sets every key of its writer's group to one
   * version) until SIGKILL, under {@code always} and then {@code everysec}; after each restart
   * every group holds one version throughout, the last acknowledged or the one in flight: never
   * half a transaction, never a lost acknowledged one.
   */
  @Test
  void sigkillNeverLeavesHalfATransaction() throws Exception {
    Map<String, Long> acked = new ConcurrentHashMap<>();
    Map<String, Long> inFlight = new ConcurrentHashMap<>();
    Child child = start("always");
    killWhileTransacting(child, acked, inFlight);
    child = start("everysec");
    try (Jedis jedis = client(child)) {
      verifyGroups(jedis, acked, inFlight, "after SIGKILL under appendfsync always");
    }
    killWhileTransacting(child, acked, inFlight);
    child = start("always");
    try (Jedis jedis = client(child)) {
      verifyGroups(jedis, acked, inFlight, "after SIGKILL under appendfsync everysec");
    } finally {
      stop(child);
    }
  }

  /**
   * Clients push to lists, add to sets and count in hashes until SIGKILL, under {@code always};
   * after the restart every list is the unbroken sequence its writer pushed, up to the last
   * acknowledged push or the one in flight, and every set and hash holds every acknowledged member
   * and count, with sizes that agree with their elements.
   */
  @Test
  void sigkillKeepsEveryAcknowledgedCollectionWrite() throws Exception {
    Child first = start("always");
    long[] acked =
        writeUntilKilled(
            first,
            "collections-",
            (jedis, writer, v) -> {
              jedis.rpush("list" + writer, Long.toString(v));
              jedis.sadd("set" + writer, Long.toString(v));
              jedis.hincrBy("hash" + writer, "count", 1);
              jedis.hset("hash" + writer, "f" + (v % 64), Long.toString(v));
            });
    Child child = start("always");
    try (Jedis jedis = client(child)) {
      for (int t = 0; t < WRITERS; t++) {
        long a = acked[t];
        List<String> list = jedis.lrange("list" + t, 0, -1);
        assertEquals(jedis.llen("list" + t), list.size(), "LLEN agrees with the elements");
        assertTrue(
            list.size() == a || list.size() == a + 1,
            "list" + t + " has " + list.size() + " elements, acknowledged " + a);
        for (int i = 0; i < list.size(); i++) {
          assertEquals(Long.toString(i + 1), list.get(i), "list" + t + "[" + i + "]");
        }
        java.util.Set<String> set = jedis.smembers("set" + t);
        assertEquals(jedis.scard("set" + t), set.size(), "SCARD agrees with the members");
        for (long v = 1; v <= a; v++) {
          assertTrue(set.contains(Long.toString(v)), "set" + t + " lost acknowledged " + v);
        }
        long count = Long.parseLong(jedis.hget("hash" + t, "count"));
        assertTrue(count == a || count == a + 1, "hash" + t + " counts " + count + " of " + a);
        java.util.Map<String, String> hash = jedis.hgetAll("hash" + t);
        assertEquals(jedis.hlen("hash" + t), hash.size(), "HLEN agrees with the fields");
      }
    } finally {
      stop(child);
    }
  }

  @Test
  void sigkillKeepsEveryDatabasesAcknowledgedWritesAndItsSwaps() throws Exception {
    Child first = start("always");
    try (Jedis jedis = client(first)) {
      jedis.select(1);
      jedis.set("origin", "one");
      jedis.select(2);
      jedis.set("origin", "two");
      jedis.swapDB(1, 2);
      jedis.select(0);
      jedis.set("moved", "v");
      jedis.move("moved", 3);
    }
    long[] acked =
        writeUntilKilled(
            first,
            "databases-",
            (jedis, writer, v) -> {
              if (v == 1) {
                jedis.select(writer % 4);
              }
              jedis.rpush("list" + writer, Long.toString(v));
            });
    Child child = start("always");
    try (Jedis jedis = client(child)) {
      for (int t = 0; t < WRITERS; t++) {
        jedis.select(t % 4);
        long size = jedis.llen("list" + t);
        assertTrue(
            size == acked[t] || size == acked[t] + 1,
            "list" + t + " in db " + t % 4 + " has " + size + ", acknowledged " + acked[t]);
      }
      jedis.select(1);
      assertEquals("two", jedis.get("origin"), "the swap survived");
      jedis.select(2);
      assertEquals("one", jedis.get("origin"), "the swap survived");
      jedis.select(3);
      assertEquals("v", jedis.get("moved"));
      jedis.select(0);
      assertEquals(null, jedis.get("moved"), "the moved key left database 0");
    } finally {
      stop(child);
    }
  }

  /** One write of writer {@code writer}'s {@code v}th step, on its own connection. */
  private interface Step {
    void write(Jedis jedis, int writer, long v);
  }

  /**
   * As {@link #writeUntilKilled(Child, String, int, Step)}, killing after 600 acknowledged steps.
   */
  private static long[] writeUntilKilled(Child child, String name, Step step) throws Exception {
    return writeUntilKilled(child, name, 600, step);
  }

  /**
   * Runs {@link #WRITERS} writers against {@code child} until {@code acksBeforeKill} steps are
   * acknowledged (or a minute passes), SIGKILLs it while they go on, and returns each writer's last
   * acknowledged step (also how many steps it had acknowledged).
   */
  private static long[] writeUntilKilled(Child child, String name, int acksBeforeKill, Step step)
      throws Exception {
    long[] acked = new long[WRITERS];
    AtomicBoolean killed = new AtomicBoolean();
    CountDownLatch done = new CountDownLatch(WRITERS);
    List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    AtomicLong acks = new AtomicLong();
    for (int t = 0; t < WRITERS; t++) {
      int writer = t;
      Thread.ofPlatform()
          .daemon()
          .name(name + t)
          .start(
              () -> {
                try (Jedis jedis = client(child)) {
                  for (long v = 1; ; v++) {
                    step.write(jedis, writer, v);
                    acked[writer] = v;
                    acks.incrementAndGet();
                  }
                } catch (RuntimeException e) {
                  if (!killed.get()) {
                    unexpected.add(e);
                  }
                } finally {
                  done.countDown();
                }
              });
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (acks.get() < acksBeforeKill && unexpected.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    killed.set(true);
    child.process().toHandle().destroyForcibly(); // SIGKILL, while the writers are still writing
    assertExited(child, 137);
    assertTrue(done.await(60, TimeUnit.SECONDS), "writers did not notice the kill");
    assertEquals(List.of(), unexpected, "writers failed before the kill");
    return acked;
  }

  private static final int GROUP_KEYS = 12;

  private static void killWhileTransacting(
      Child child, Map<String, Long> acked, Map<String, Long> inFlight) throws Exception {
    long[] base = new long[WRITERS];
    for (int t = 0; t < WRITERS; t++) {
      base[t] = acked.getOrDefault("g" + t, 0L) + 1_000_000;
    }
    long[] steps =
        writeUntilKilled(
            child,
            "transactions-g",
            1500,
            (jedis, t, v) -> {
              String group = "g" + t;
              long version = base[t] + v - 1;
              inFlight.put(group, version);
              redis.clients.jedis.Transaction tx = jedis.multi();
              for (int k = 0; k < GROUP_KEYS; k++) {
                tx.set(group + ":" + k, version + ":" + "x".repeat(k * 40));
              }
              tx.exec();
              acked.put(group, version);
              inFlight.remove(group);
            });
    long acks = java.util.Arrays.stream(steps).sum();
    assertTrue(acks >= 1500, "only " + acks + " transactions acknowledged");
  }

  private static void verifyGroups(
      Jedis jedis, Map<String, Long> acked, Map<String, Long> inFlight, String when) {
    for (int t = 0; t < WRITERS; t++) {
      String group = "g" + t;
      Long held = null;
      for (int k = 0; k < GROUP_KEYS; k++) {
        String value = jedis.get(group + ":" + k);
        assertTrue(value != null, group + ":" + k + " lost " + when);
        long version = Long.parseLong(value.substring(0, value.indexOf(':')));
        assertEquals("x".repeat(k * 40), value.substring(value.indexOf(':') + 1));
        if (held != null) {
          assertEquals(held, version, group + " holds half a transaction " + when);
        }
        held = version;
      }
      Long last = acked.get(group);
      Long pending = inFlight.get(group);
      assertTrue(
          held.equals(last) || held.equals(pending),
          group
              + " holds "
              + held
              + ", acknowledged "
              + last
              + ", in flight "
              + pending
              + " "
              + when);
      acked.put(group, held);
    }
    inFlight.clear();
  }

  private static final int WRITERS = 4;
  private static final int KEYS_PER_WRITER = 200;

  /**
   * Runs the writers against {@code child} until 3000 writes are acknowledged, SIGKILLs it while
   * they go on, and records per key the last acknowledged version ({@code acked}) and per writer
   * the write left unanswered ({@code inFlight}, key to version).
   */
  private static void killWhileWriting(
      Child child, String round, Map<String, Long> acked, Map<String, Long> inFlight)
      throws Exception {
    long[] steps =
        writeUntilKilled(
            child,
            "writer-" + round,
            3000,
            (jedis, t, version) -> {
              String key = round + t + ":" + (version % KEYS_PER_WRITER);
              inFlight.put(key, version);
              jedis.set(key, Long.toString(version));
              acked.put(key, version);
              inFlight.remove(key);
            });
    long acks = java.util.Arrays.stream(steps).sum();
    assertTrue(acks >= 3000, "only " + acks + " writes acknowledged before the deadline");
  }

  private static void verifyAcknowledged(
      Jedis jedis, Map<String, Long> acked, Map<String, Long> inFlight, String when) {
    Set<String> keys = new HashSet<>(acked.keySet());
    keys.addAll(inFlight.keySet());
    for (String key : keys) {
      String value = jedis.get(key);
      Long last = acked.get(key);
      Long pending = inFlight.get(key);
      if (value == null) {
        assertNull(last, key + ": acknowledged version " + last + " lost " + when);
        continue;
      }
      long version = Long.parseLong(value);
      assertTrue(
          (last != null && version == last) || (pending != null && version == pending),
          key
              + " holds version "
              + version
              + ", last acknowledged "
              + last
              + ", in flight "
              + pending
              + ", "
              + when);
      // What the store holds now is what later rounds build on.
      acked.put(key, version);
    }
    inFlight.clear();
    Set<String> found = jedis.keys("*");
    assertEquals(acked.keySet(), found, "keys neither acknowledged nor in flight " + when);
  }

  // ------------------------------------------------------------------ the child JVM

  private Child start(String fsync) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path log = dir.resolve("server-" + starts.incrementAndGet() + ".log");
    // C1 only and the serial collector: a short-lived server on a small machine starts about a
    // third faster, and how the JIT compiles does not change what survives a restart.
    Process p =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                ServerMain.class.getName(),
                "dir",
                dir.resolve("data").toString(),
                "appendfsync",
                fsync,
                "io-threads",
                "2")
            .redirectError(log.toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = readLineWithin(out, START_TIMEOUT_SECONDS, p);
    if (line == null || !line.startsWith("port ")) {
      p.destroyForcibly();
      fail("server did not start: " + line + "\n" + Files.readString(log));
    }
    return new Child(p, Integer.parseInt(line.substring("port ".length()).trim()), log);
  }

  private static String readLineWithin(BufferedReader reader, long seconds, Process p) {
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return reader.readLine();
              } catch (IOException e) {
                return null;
              }
            },
            command -> Thread.ofPlatform().daemon().start(command));
    try {
      return line.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      return null;
    }
  }

  private static Jedis client(Child child) {
    return new Jedis("127.0.0.1", child.port(), 30_000);
  }

  private static void assertExited(Child child, int expectedCode) throws Exception {
    assertTrue(child.process().waitFor(60, TimeUnit.SECONDS), "server did not exit");
    assertEquals(
        expectedCode, child.process().exitValue(), () -> "exit code; log:\n" + readLog(child));
  }

  private static void stop(Child child) throws Exception {
    child.process().destroy();
    if (!child.process().waitFor(60, TimeUnit.SECONDS)) {
      child.process().destroyForcibly();
    }
    Files.deleteIfExists(child.log());
  }

  private static String readLog(Child child) {
    try {
      return Files.readString(child.log());
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
