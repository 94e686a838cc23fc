package dev.cellar.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Random operations through the client, the same ones applied to a {@link HashMap}: set, get, del,
 * incr, mset, mget and expire (with TTLs long enough not to lapse during the run), each sent one of
 * three ways (a synchronous call, a pipeline, a future), checked against the model as they go and
 * at the end. A failure names its seed; the sequence replays from it.
 */
class ModelTest {
  @org.junit.jupiter.api.io.TempDir static Path dir;
  static TestServer server;
  static final java.util.EnumMap<ClientTransport, CellarClient> CLIENTS =
      new java.util.EnumMap<>(ClientTransport.class);

  /** The client of the running test: one per transport, on the same server. */
  CellarClient client;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir);
    for (ClientTransport t :
        new ClientTransport[] {ClientTransport.TCP, ClientTransport.SHARED_MEMORY}) {
      CLIENTS.put(t, CellarClient.connect(server.uri(), ClientOptions.defaults().withTransport(t)));
    }
  }

  @AfterAll
  static void stop() {
    CLIENTS.values().forEach(CellarClient::close);
    server.close();
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> runs() {
    return java.util.stream.Stream.of(ClientTransport.TCP, ClientTransport.SHARED_MEMORY)
        .flatMap(
            t ->
                java.util.stream.LongStream.of(1, 2, 3, 42, 20261126)
                    .mapToObj(seed -> org.junit.jupiter.params.provider.Arguments.of(t, seed)));
  }

  /** The model: values, and which keys have an expiry. */
  private final Map<String, String> values = new HashMap<>();

  private final Set<String> expiring = new HashSet<>();

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("runs")
  void randomOperationsMatchAHashMap(ClientTransport transport, long seed) throws Exception {
    client = CLIENTS.get(transport);
    assertTrue(
        client.transport().startsWith(transport == ClientTransport.TCP ? "tcp:" : "shm:"),
        client.transport());
    client.command("FLUSHALL");
    Random random = new Random(seed);
    for (int step = 0; step < 3_000; step++) {
      String where = "seed " + seed + ", step " + step;
      int mode = random.nextInt(3);
      if (mode == 1) {
        pipelined(random, where);
      } else {
        single(random, mode == 2, where);
      }
    }
    for (int k = 0; k < 40; k++) {
      String key = "m" + k;
      assertEquals(values.get(key), str(client.get(b(key))), "final " + key + ", seed " + seed);
      long pttl = client.pttl(b(key));
      long expected = !values.containsKey(key) ? -2 : expiring.contains(key) ? 1 : -1;
      assertEquals(expected, Long.signum(pttl) == 1 ? 1 : pttl, "final ttl of " + key);
    }
    assertEquals(values.size(), client.dbSize(), "seed " + seed);
  }

  private void single(Random random, boolean async, String where) throws Exception {
    String key = key(random);
    switch (random.nextInt(7)) {
      case 0 -> {
        String v = "v" + random.nextInt(1000);
        if (async) {
          client.async().set(b(key), b(v)).get();
        } else {
          client.set(b(key), b(v));
        }
        values.put(key, v);
        expiring.remove(key);
      }
      case 1 -> {
        if (!async && random.nextBoolean()) {
          String got = client.read(b(key), ModelTest::text);
          assertEquals(values.get(key), got, where + ": GET in place " + key);
        } else {
          byte[] got = async ? client.async().get(b(key)).get() : client.get(b(key));
          assertEquals(values.get(key), str(got), where + ": GET " + key);
        }
      }
      case 2 -> {
        long n = async ? client.async().del(b(key)).get() : client.del(b(key));
        assertEquals(values.remove(key) != null ? 1 : 0, n, where + ": DEL " + key);
        expiring.remove(key);
      }
      case 3 -> incr(key, async, where);
      case 4 -> {
        List<byte[]> pairs = new ArrayList<>();
        Map<String, String> batch = new HashMap<>();
        for (int i = random.nextInt(4) + 1; i > 0; i--) {
          String k = key(random);
          String v = "v" + random.nextInt(1000);
          pairs.add(b(k));
          pairs.add(b(v));
          batch.put(k, v); // a key given twice ends with its last value, as in the model
        }
        byte[][] args = pairs.toArray(new byte[0][]);
        if (async) {
          client.async().mset(args).get();
        } else {
          client.mset(args);
        }
        values.putAll(batch);
        expiring.removeAll(batch.keySet());
      }
      case 5 -> {
        String[] keys = {key(random), key(random), key(random)};
        byte[][] raw = {b(keys[0]), b(keys[1]), b(keys[2])};
        List<byte[]> got = async ? client.async().mget(raw).get() : client.mget(raw);
        for (int i = 0; i < keys.length; i++) {
          assertEquals(values.get(keys[i]), str(got.get(i)), where + ": MGET " + keys[i]);
        }
      }
      default -> {
        Duration ttl = Duration.ofMinutes(10 + random.nextInt(50));
        boolean set = async ? client.async().expire(b(key), ttl).get() : client.expire(b(key), ttl);
        assertEquals(values.containsKey(key), set, where + ": EXPIRE " + key);
        if (set) {
          expiring.add(key);
          long pttl = client.pttl(b(key));
          assertTrue(pttl > 0 && pttl <= ttl.toMillis(), where + ": PTTL " + pttl);
        }
      }
    }
  }

  private void incr(String key, boolean async, String where) throws Exception {
    String old = values.get(key);
    boolean numeric = old == null || old.matches("-?\\d{1,18}");
    CompletableFuture<Long> f = new CompletableFuture<>();
    try {
      f.complete(async ? client.async().incr(b(key)).get() : client.incr(b(key)));
    } catch (CellarServerException e) {
      f.completeExceptionally(e);
    } catch (java.util.concurrent.ExecutionException e) {
      f.completeExceptionally(e.getCause());
    }
    if (numeric) {
      long expected = (old == null ? 0 : Long.parseLong(old)) + 1;
      assertEquals(expected, f.join(), where + ": INCR " + key);
      values.put(key, Long.toString(expected)); // INCR keeps the expiry
    } else {
      assertTrue(f.isCompletedExceptionally(), where + ": INCR of " + old + " must fail");
    }
  }

  /** A few operations in one pipeline, their results checked after the sync. */
  private void pipelined(Random random, String where) {
    try (Pipeline p = client.pipeline()) {
      List<Runnable> checks = new ArrayList<>();
      for (int i = random.nextInt(20) + 1; i > 0; i--) {
        String key = key(random);
        switch (random.nextInt(4)) {
          case 0 -> {
            String v = "v" + random.nextInt(1000);
            Pipeline.Result<Void> r = p.set(b(key), b(v));
            values.put(key, v);
            expiring.remove(key);
            checks.add(r::get);
          }
          case 1 -> {
            String expected = values.get(key);
            if (random.nextBoolean()) {
              Pipeline.Result<String> r = p.read(b(key), ModelTest::text);
              checks.add(
                  () -> assertEquals(expected, r.get(), where + ": piped GET in place " + key));
            } else {
              Pipeline.Result<byte[]> r = p.get(b(key));
              checks.add(() -> assertEquals(expected, str(r.get()), where + ": piped GET " + key));
            }
          }
          case 2 -> {
            long expected = values.remove(key) != null ? 1 : 0;
            expiring.remove(key);
            Pipeline.Result<Long> r = p.del(b(key));
            checks.add(() -> assertEquals(expected, r.get(), where + ": piped DEL " + key));
          }
          default -> {
            String old = values.get(key);
            if (old == null || old.matches("-?\\d{1,18}")) {
              long expected = (old == null ? 0 : Long.parseLong(old)) + 1;
              values.put(key, Long.toString(expected));
              Pipeline.Result<Long> r = p.incr(b(key));
              checks.add(() -> assertEquals(expected, r.get(), where + ": piped INCR " + key));
            }
          }
        }
      }
      p.sync();
      checks.forEach(Runnable::run);
    }
  }

  private static String key(Random random) {
    return "m" + random.nextInt(40);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static String str(byte[] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }

  /** A value read in place, as text: the view is copied here, inside the call. */
  private static String text(java.lang.foreign.MemorySegment view) {
    return new String(view.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8);
  }
}
