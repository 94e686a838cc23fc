package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LRU and LFU policies keep what is used. A working set of hot keys, read again and again, and
 * a stream of cold keys written once, four times what fits under {@code maxmemory}: under {@code
 * allkeys-lru} and {@code allkeys-lfu} nearly every hot key survives, under {@code allkeys-random}
 * few do (the same workload, in the same test, as the baseline). Under {@code volatile-lru} keys
 * without an expiry are never evicted.
 */
class EvictionPolicyTest {
  private static final int HOT = 200;
  private static final int COLD = 8_000;
  private static final String VALUE = "v".repeat(4096);

  @TempDir Path dir;

  /** Runs the workload under {@code policy}; returns how many hot keys survived. */
  private int hotSurvivors(String policy, boolean volatileKeys) throws IOException {
    Path data = dir.resolve(policy);
    try (CellarServer server =
            CellarServer.start(
                new ServerConfig()
                    .set("port", "0")
                    .set("http-port", "0")
                    .set("dir", data.toString())
                    .set("maxmemory", "8mb")
                    .set("maxmemory-policy", policy));
        RawClient c = new RawClient(server.port())) {
      String[] ttl = volatileKeys ? new String[] {"EX", "100000"} : new String[0];
      for (int i = 0; i < HOT; i++) {
        c.send(concat(new String[] {"SET", "hot" + i, VALUE}, ttl)).readLine();
      }
      for (int i = 0; i < COLD; i++) {
        assertEquals(
            "+OK\r\n", c.send(concat(new String[] {"SET", "cold" + i, VALUE}, ttl)).readLine());
        if (i % 10 == 0) {
          readHot(c);
        }
      }
      int survivors = 0;
      for (int i = 0; i < HOT; i++) {
        survivors += c.send("EXISTS", "hot" + i).readLine().equals(":1\r\n") ? 1 : 0;
      }
      return survivors;
    }
  }

  private static void readHot(RawClient c) throws IOException {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (int i = 0; i < HOT; i++) {
      wire.writeBytes(RawClient.command("GET", "hot" + i));
    }
    c.send(wire.toByteArray());
    for (int i = 0; i < HOT; i++) {
      String header = c.readLine();
      if (header.startsWith("$4096")) {
        c.read(4098);
      }
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void lruAndLfuKeepTheWorkingSetWhereRandomEvictionLosesIt() throws IOException {
    int random = hotSurvivors("allkeys-random", false);
    int lru = hotSurvivors("allkeys-lru", false);
    int lfu = hotSurvivors("allkeys-lfu", false);
    int volatileLru = hotSurvivors("volatile-lru", true);
    String seen =
        "hot keys of "
            + HOT
            + " surviving: random "
            + random
            + ", lru "
            + lru
            + ", lfu "
            + lfu
            + ", volatile-lru "
            + volatileLru;
    System.out.println(seen);
    assertTrue(lru >= HOT * 9 / 10, seen);
    assertTrue(lfu >= HOT * 9 / 10, seen);
    assertTrue(volatileLru >= HOT * 9 / 10, seen);
    assertTrue(random < HOT / 2, seen);
  }

  @Test
  void volatileLruNeverEvictsKeysWithoutAnExpiry() throws IOException {
    try (CellarServer server =
            CellarServer.start(
                new ServerConfig()
                    .set("port", "0")
                    .set("http-port", "0")
                    .set("dir", dir.resolve("volatile").toString())
                    .set("maxmemory", "4mb")
                    .set("maxmemory-policy", "volatile-lru"));
        RawClient c = new RawClient(server.port())) {
      for (int i = 0; i < 100; i++) {
        assertEquals("+OK\r\n", c.send("SET", "keep" + i, VALUE).readLine());
      }
      String reply = "";
      for (int i = 0; i < 4_000 && !reply.startsWith("-OOM"); i++) {
        reply = c.send("SET", "temp" + i, VALUE, "EX", "1000").readLine();
      }
      for (int i = 0; i < 100; i++) {
        assertEquals(":1\r\n", c.send("EXISTS", "keep" + i).readLine(), "keep" + i);
      }
    }
  }
}
