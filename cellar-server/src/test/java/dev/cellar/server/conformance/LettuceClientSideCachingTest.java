package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lettuce's client-side caching ({@code ClientSideCaching}, over RESP3 tracking) against the
 * server: a value read once is served from the client's own map, and a change by another connection
 * empties that entry through the server's invalidation, so the next read sees the new value.
 */
class LettuceClientSideCachingTest extends AbstractConformanceTest {
  private RedisClient client;

  @BeforeAll
  void createClient() {
    client = lettuce();
  }

  @AfterAll
  void shutdownClient() {
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
    }
  }

  @Test
  void aChangeByAnotherConnectionEmptiesTheCachedEntry() throws Exception {
    Map<String, String> local = new ConcurrentHashMap<>();
    try (StatefulRedisConnection<String, String> cached = client.connect();
        StatefulRedisConnection<String, String> other = client.connect()) {
      CacheFrontend<String, String> frontend =
          ClientSideCaching.enable(
              CacheAccessor.forMap(local), cached, TrackingArgs.Builder.enabled());
      other.sync().set("profile", "v1");
      assertEquals("v1", frontend.get("profile"));
      assertEquals("v1", local.get("profile"), "read once, kept by the client");

      other.sync().set("profile", "v2");
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (local.containsKey("profile") && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(!local.containsKey("profile"), "the invalidation emptied the entry");
      assertEquals("v2", frontend.get("profile"));

      other.sync().del("profile");
      deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (local.containsKey("profile") && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(!local.containsKey("profile"), "a deletion empties it too");
      frontend.close();
    }
  }
}
