package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code maxmemory} with an eviction policy, each key the server evicts is announced as an
 * {@code evicted} keyspace event: as many events as {@code INFO}'s {@code evicted_keys}, each
 * naming a key that is gone.
 */
class EvictedEventsTest {
  @TempDir Path dir;

  @Test
  void everyEvictedKeyIsAnnouncedAndGone() throws IOException {
    try (CellarServer server =
            CellarServer.start(
                new ServerConfig()
                    .set("port", "0")
                    .set("http-port", "0")
                    .set("dir", dir.toString())
                    .set("maxmemory", "8mb")
                    .set("maxmemory-policy", "allkeys-random")
                    .set("notify-keyspace-events", "Ee"));
        RawClient subscriber = new RawClient(server.port());
        RawClient writer = new RawClient(server.port())) {
      subscriber.send("SUBSCRIBE", "__keyevent@0__:evicted");
      for (int i = 0; i < 6; i++) {
        subscriber.readLine();
      }
      String value = "v".repeat(8 * 1024);
      for (int i = 0; i < 3 * 1024; i++) { // three times what fits
        assertEquals("+OK\r\n", writer.send("SET", "k" + i, value).readLine());
      }
      String info = writer.send("INFO", "stats").readLine();
      String stats = writer.read(Integer.parseInt(info.substring(1).trim()) + 2);
      long evicted =
          stats
              .lines()
              .filter(l -> l.startsWith("evicted_keys:"))
              .mapToLong(l -> Long.parseLong(l.substring("evicted_keys:".length()).trim()))
              .findFirst()
              .orElseThrow();
      assertTrue(evicted > 0, "nothing was evicted: " + stats);
      Set<String> announced = new HashSet<>();
      for (long n = 0; n < evicted; n++) {
        assertEquals("*3\r\n", subscriber.readLine());
        subscriber.readLine();
        assertEquals("message\r\n", subscriber.readLine());
        subscriber.readLine();
        assertEquals("__keyevent@0__:evicted\r\n", subscriber.readLine());
        subscriber.readLine();
        String key = subscriber.readLine().trim();
        announced.add(key);
      }
      for (String key : announced) {
        // A key written again after its eviction may be back; none was (each written once).
        assertEquals(":0\r\n", writer.send("EXISTS", key).readLine(), key + " was announced");
      }
      assertEquals(evicted, announced.size(), "each eviction announced once, by its key");
    }
  }
}
