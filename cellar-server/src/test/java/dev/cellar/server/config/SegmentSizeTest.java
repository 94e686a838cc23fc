package dev.cellar.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.CellarOptions;
import dev.cellar.server.CellarServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The expert setting {@code segment-size}, which the crash loop uses so that compaction has sealed
 * segments to rewrite after little writing, and the INFO fields that say whether a BGSAVE or
 * BGREWRITEAOF is still running.
 */
class SegmentSizeTest {
  @TempDir Path dir;

  @Test
  void segmentSizeIsValidatedWhenSet() {
    assertEquals(CellarOptions.DEFAULT_SEGMENT_BYTES, new ServerConfig().segmentSize());
    assertEquals(1 << 20, new ServerConfig().set("segment-size", "1mb").segmentSize());
    ConfigException small =
        assertThrows(ConfigException.class, () -> new ServerConfig().set("segment-size", "64kb"));
    assertTrue(small.getMessage().contains("between 256kb and 1gb"), small.getMessage());
    assertThrows(ConfigException.class, () -> new ServerConfig().set("segment-size", "2gb"));
  }

  @Test
  void smallSegmentsSealCapValuesAndCompact() throws Exception {
    ServerConfig config =
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", dir.toString())
            .set("segment-size", "256kb");
    CellarServer server = CellarServer.start(config);
    try (Jedis jedis = new Jedis("127.0.0.1", server.port(), 30_000)) {
      assertEquals("262144", jedis.configGet("segment-size").get("segment-size"));
      jedis.set("big", "x".repeat(150 << 10));
      JedisDataException tooBig =
          assertThrows(JedisDataException.class, () -> jedis.set("bigger", "x".repeat(300 << 10)));
      assertTrue(tooBig.getMessage().contains("value"), tooBig.getMessage());
      for (int i = 0; i < 4000; i++) {
        jedis.set("k" + (i % 100), "v".repeat(500) + i);
      }
      assertTrue(
          Long.parseLong(persistence(jedis).get("cellar_segments")) > 4,
          persistence(jedis).toString());
      assertEquals("Background append only file rewriting started", jedis.bgrewriteaof());
      assertEquals("Background saving started", jedis.bgsave());
      Map<String, String> info = persistence(jedis);
      for (long deadline = System.nanoTime() + 60_000_000_000L;
          System.nanoTime() < deadline;
          info = persistence(jedis)) {
        if (info.get("aof_rewrite_in_progress").equals("0")
            && info.get("rdb_bgsave_in_progress").equals("0")) {
          break;
        }
        Thread.sleep(10);
      }
      assertEquals("0", info.get("aof_rewrite_in_progress"), info.toString());
      assertEquals("0", info.get("rdb_bgsave_in_progress"), info.toString());
      assertTrue(Long.parseLong(info.get("cellar_compactions")) >= 1, info.toString());
      assertEquals("v".repeat(500) + 3999, jedis.get("k99"));
    } finally {
      server.close();
    }
  }

  private static Map<String, String> persistence(Jedis jedis) {
    Map<String, String> fields = new HashMap<>();
    for (String line : jedis.info("persistence").split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return fields;
  }
}
