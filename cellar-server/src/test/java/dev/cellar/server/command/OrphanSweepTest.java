package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.testsupport.LocalServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Deleting, replacing or expiring a collection removes its header at once and leaves its elements
 * to the background sweep: they are all gone soon after, and a live collection's never are, even
 * one renamed while the sweep runs.
 */
class OrphanSweepTest {
  @TempDir Path dir;

  private static long elements(Jedis jedis) {
    String info = jedis.info("stats");
    for (String line : info.split("\r\n")) {
      if (line.startsWith("cellar_collection_elements:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1));
      }
    }
    throw new AssertionError("no cellar_collection_elements in INFO: " + info);
  }

  @Test
  void theElementsOfGoneCollectionsAreSweptAndLiveOnesKept() throws Exception {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      Map<String, String> fields = new HashMap<>();
      for (int i = 0; i < 2000; i++) {
        fields.put("f" + i, "v" + i);
      }
      jedis.hset("deleted", fields);
      jedis.hset("replaced", fields);
      jedis.hset("expiring", fields);
      jedis.hset("kept", fields);
      jedis.hset("renamed", fields);
      for (int i = 0; i < 500; i++) {
        jedis.rpush("list", "e" + i);
      }
      long full = elements(jedis);
      assertTrue(full >= 5 * (2 * 2000 + 1) + 501, "elements " + full);
      jedis.del("deleted");
      jedis.set("replaced", "now a string");
      jedis.pexpire("expiring", 50);
      jedis.rename("renamed", "moved");
      jedis.unlink("list");
      // Each live hash: 2 records per field and its owner; plus the id allocator's block end.
      long live = 2 * (2 * 2000 + 1) + 1;
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (elements(jedis) > live && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(live, elements(jedis), "the gone collections' elements are swept");
      assertEquals(2000, jedis.hlen("kept"));
      assertEquals(2000, jedis.hlen("moved"));
      assertEquals("v1999", jedis.hget("moved", "f1999"));
      assertEquals(fields, jedis.hgetAll("kept"));
    }
  }
}
