package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.testsupport.LocalServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A hostile or careless transaction cannot grow the heap without bound nor leave part of itself
 * applied: queued commands count against {@code client-query-buffer-limit}, and a transaction that
 * writes more than one atomic unit of the log holds (half a segment) fails whole, with nothing
 * written and no keyspace event published.
 */
class TransactionLimitsTest {
  @TempDir Path dir;
  CellarServer server;

  @BeforeEach
  void start() {
    server =
        LocalServer.start(
            dir,
            "segment-size",
            "1mb",
            "client-query-buffer-limit",
            "1mb",
            "notify-keyspace-events",
            "KA");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Jedis client() {
    return new Jedis("127.0.0.1", server.port(), 30_000);
  }

  @Test
  void aQueueOverTheQueryBufferLimitIsRefusedAndDiscarded() {
    try (Jedis jedis = client()) {
      Transaction tx = jedis.multi();
      tx.set("q1", "x".repeat(600 << 10));
      tx.set("q2", "y".repeat(600 << 10));
      JedisDataException e = assertThrows(JedisDataException.class, tx::exec);
      assertTrue(e.getMessage().startsWith("EXECABORT"), e.getMessage());
      assertNull(jedis.get("q1"));
      assertNull(jedis.get("q2"));
    }
  }

  @Test
  void aTransactionLargerThanAUnitFailsWholeAndPublishesNothing() throws Exception {
    try (Jedis jedis = client();
        Jedis subscriber = client()) {
      jedis.set("before", "1");
      List<Object> started = new java.util.concurrent.CopyOnWriteArrayList<>();
      redis.clients.jedis.JedisPubSub listener =
          new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onPSubscribe(String pattern, int count) {
              started.add(pattern);
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
              started.add(channel + " " + message);
              if (channel.endsWith("sentinel")) {
                punsubscribe();
              }
            }
          };
      Thread listening = Thread.ofPlatform().start(() -> subscriber.psubscribe(listener, "*"));
      while (started.isEmpty()) {
        Thread.sleep(10);
      }
      // Each SET fits the queue; together they exceed half of a 1 MiB segment.
      for (int i = 0; i < 3; i++) {
        Transaction tx = jedis.multi();
        tx.set("big" + i + "a", "a".repeat(200 << 10));
        tx.set("big" + i + "b", "b".repeat(200 << 10));
        tx.set("big" + i + "c", "c".repeat(200 << 10));
        tx.del("before");
        JedisDataException e = assertThrows(JedisDataException.class, tx::exec);
        assertTrue(e.getMessage().startsWith("EXECABORT Transaction not applied"), e.getMessage());
        assertTrue(e.getMessage().contains("nothing of it"), e.getMessage());
      }
      assertEquals("1", jedis.get("before"));
      assertNull(jedis.get("big0a"));
      assertEquals(1, jedis.dbSize());
      jedis.set("sentinel", "x");
      listening.join(30_000);
      assertEquals(List.of("*", "__keyspace@0__:sentinel set"), started);
    }
  }
}
