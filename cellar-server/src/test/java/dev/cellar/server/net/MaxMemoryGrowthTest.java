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
 * What a write adds to the log counts against {@code maxmemory} at once, not at the next sample of
 * used memory (every 100 ms): a {@code SETBIT} at a large offset grows its value by 200 KB from a
 * few bytes of arguments, and the command right behind it in the same pipeline must see that. The
 * estimate counted only the written command's argument bytes before, so the command behind it ran
 * as if nothing had grown.
 */
class MaxMemoryGrowthTest {
  @TempDir Path dir;

  private static ServerConfig config(Path data, String policy) {
    return new ServerConfig()
        .set("port", "0")
        .set("http-port", "0")
        .set("dir", data.toString())
        .set("maxmemory-policy", policy);
  }

  private static long field(String info, String name) {
    return info.lines()
        .filter(l -> l.startsWith(name + ":"))
        .mapToLong(l -> Long.parseLong(l.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + info));
  }

  private static long usedMemory(RawClient c) throws IOException {
    return field(c.info("memory"), "used_memory");
  }

  @Test
  void aWriteRightAfterALargeGrowthIsRefusedUnderNoeviction() throws IOException {
    try (CellarServer server = CellarServer.start(config(dir.resolve("noeviction"), "noeviction"));
        RawClient c = new RawClient(server.port())) {
      for (int round = 0; round < 3; round++) {
        long used = usedMemory(c);
        assertTrue(used > 0, "total.allocated " + used);
        assertEquals(
            "+OK\r\n",
            c.send("CONFIG", "SET", "maxmemory", Long.toString(used + 100_000)).readLine());
        ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
        pipeline.writeBytes(RawClient.command("SETBIT", "bits" + round, "1600000", "1"));
        pipeline.writeBytes(RawClient.command("SET", "after" + round, "v"));
        c.send(pipeline.toByteArray());
        assertEquals(":0\r\n", c.readLine(), "the SETBIT itself is admitted");
        String reply = c.readLine();
        assertTrue(
            reply.startsWith("-OOM "),
            "round " + round + ": a write behind a 200 KB growth must see it, got " + reply);
        assertEquals("+OK\r\n", c.send("CONFIG", "SET", "maxmemory", "0").readLine());
      }
    }
  }

  @Test
  void aCommandRightAfterALargeGrowthEvictsFirst() throws IOException {
    try (CellarServer server = CellarServer.start(config(dir.resolve("random"), "allkeys-random"));
        RawClient c = new RawClient(server.port())) {
      for (int i = 0; i < 20; i++) {
        assertEquals("+OK\r\n", c.send("SET", "small" + i, "x".repeat(100)).readLine());
      }
      long used = usedMemory(c);
      assertEquals(
          "+OK\r\n",
          c.send("CONFIG", "SET", "maxmemory", Long.toString(used + 100_000)).readLine());
      ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
      pipeline.writeBytes(RawClient.command("SETBIT", "bits", "1600000", "1"));
      pipeline.writeBytes(RawClient.command("GET", "small0"));
      c.send(pipeline.toByteArray());
      assertEquals(":0\r\n", c.readLine());
      String get = c.readLine();
      if (get.startsWith("$") && !get.startsWith("$-1")) {
        c.readLine(); // small0 was not the key evicted
      }
      long evicted = field(c.info("stats"), "evicted_keys");
      assertTrue(evicted > 0, "the command behind the growth evicted nothing");
    }
  }
}
