package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lettuce over RESP2 and RESP3 (its default, negotiated with {@code HELLO 3}): the synchronous API,
 * the asynchronous one with manual flushing (one write for a whole batch, so replies arrive
 * pipelined), and error replies as {@link RedisCommandExecutionException}.
 */
class LettuceClientTest extends AbstractConformanceTest {
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

  private StatefulRedisConnection<String, String> connect(ProtocolVersion protocol) {
    client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
    return client.connect();
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void synchronousCommands(ProtocolVersion protocol) {
    try (StatefulRedisConnection<String, String> connection = connect(protocol)) {
      RedisCommands<String, String> redis = connection.sync();
      assertTrue(
          redis.clientInfo().contains(" resp=" + (protocol == ProtocolVersion.RESP3 ? 3 : 2)),
          redis.clientInfo());
      assertEquals("PONG", redis.ping());
      assertEquals("OK", redis.set("k", "v"));
      assertEquals("v", redis.get("k"));
      assertNull(redis.get("missing"));
      assertNull(redis.setGet("new", "1"), "SET ... GET on a missing key");
      assertNull(redis.set("k", "w", SetArgs.Builder.nx()));
      assertEquals("OK", redis.set("k", "w", SetArgs.Builder.xx().ex(100)));
      assertEquals(100L, redis.ttl("k"));
      assertEquals(10L, redis.incrby("n", 10));
      assertEquals(10.25, redis.incrbyfloat("n", 0.25));
      assertEquals("OK", redis.mset(java.util.Map.of("a", "1", "b", "2")));
      List<KeyValue<String, String>> values = redis.mget("a", "b", "c");
      assertEquals("1", values.get(0).getValue());
      assertEquals("2", values.get(1).getValue());
      assertFalse(values.get(2).hasValue());
      assertEquals(2L, redis.exists("a", "b", "c"));
      assertEquals("string", redis.type("a"));
      assertEquals(Boolean.TRUE, redis.expire("a", 100));
      assertEquals(Boolean.TRUE, redis.persist("a"));
      assertEquals(-1L, redis.ttl("a"));
      assertEquals(2L, redis.del("a", "b", "c"));
      assertEquals("0", redis.configGet("maxmemory").get("maxmemory"));
      assertTrue(redis.info("keyspace").startsWith("# Keyspace"));
      assertTrue(redis.dbsize() >= 2);
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void scanIteration(ProtocolVersion protocol) {
    try (StatefulRedisConnection<String, String> connection = connect(protocol)) {
      RedisCommands<String, String> redis = connection.sync();
      for (int i = 0; i < 300; i++) {
        redis.set("s:" + i, "v");
      }
      redis.set("other", "v");
      Set<String> seen = new HashSet<>();
      KeyScanCursor<String> cursor = redis.scan(ScanArgs.Builder.matches("s:*").limit(40));
      seen.addAll(cursor.getKeys());
      while (!cursor.isFinished()) {
        cursor =
            redis.scan(
                ScanCursor.of(cursor.getCursor()), ScanArgs.Builder.matches("s:*").limit(40));
        seen.addAll(cursor.getKeys());
      }
      assertEquals(300, seen.size());
      assertFalse(seen.contains("other"));
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void errorRepliesBecomeExceptionsAndTheConnectionGoesOn(ProtocolVersion protocol) {
    try (StatefulRedisConnection<String, String> connection = connect(protocol)) {
      RedisCommands<String, String> redis = connection.sync();
      redis.set("text", "abc");
      RedisCommandExecutionException e =
          assertThrows(RedisCommandExecutionException.class, () -> redis.incr("text"));
      assertEquals("ERR value is not an integer or out of range", e.getMessage());
      RedisCommandExecutionException f =
          assertThrows(RedisCommandExecutionException.class, () -> redis.incrbyfloat("text", 1));
      assertEquals("ERR value is not a valid float", f.getMessage());
      RedisCommandExecutionException g =
          assertThrows(RedisCommandExecutionException.class, () -> redis.rename("nope", "x"));
      assertEquals("ERR no such key", g.getMessage());
      assertEquals("PONG", redis.ping());
      assertEquals("abc", redis.get("text"));
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void asynchronousPipeline(ProtocolVersion protocol) throws Exception {
    try (StatefulRedisConnection<String, String> connection = connect(protocol)) {
      RedisAsyncCommands<String, String> async = connection.async();
      connection.setAutoFlushCommands(false);
      List<RedisFuture<?>> writes = new ArrayList<>();
      List<RedisFuture<String>> reads = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        writes.add(async.set("a:" + i, "v" + i));
        reads.add(async.get("a:" + i));
        writes.add(async.incr("a:count"));
      }
      RedisFuture<Long> failing = async.incr("a:0");
      RedisFuture<String> afterError = async.get("a:2999");
      connection.flushCommands();
      assertTrue(LettuceFutures.awaitAll(30, TimeUnit.SECONDS, reads.toArray(new RedisFuture[0])));
      assertTrue(LettuceFutures.awaitAll(30, TimeUnit.SECONDS, writes.toArray(new RedisFuture[0])));
      for (int i = 0; i < 3000; i++) {
        assertEquals("v" + i, reads.get(i).get());
      }
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> failing.get(10, TimeUnit.SECONDS));
      assertInstanceOf(RedisCommandExecutionException.class, e.getCause());
      assertEquals("v2999", afterError.get(10, TimeUnit.SECONDS));
      connection.setAutoFlushCommands(true);
      assertEquals("3000", async.get("a:count").get(10, TimeUnit.SECONDS));
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void transactionsAndWatch(ProtocolVersion protocol) {
    try (StatefulRedisConnection<String, String> connection = connect(protocol);
        StatefulRedisConnection<String, String> otherConnection = connect(protocol)) {
      RedisCommands<String, String> redis = connection.sync();
      RedisCommands<String, String> other = otherConnection.sync();
      redis.set("lt:n", "1");
      assertEquals("OK", redis.multi());
      redis.incr("lt:n");
      redis.append("lt:s", "ab");
      redis.get("lt:s");
      io.lettuce.core.TransactionResult result = redis.exec();
      assertFalse(result.wasDiscarded());
      assertEquals(3, result.size());
      assertEquals(2L, (Long) result.get(0));
      assertEquals(2L, (Long) result.get(1));
      assertEquals("ab", result.get(2));

      assertEquals("OK", redis.watch("lt:n"));
      other.set("lt:n", "9");
      redis.multi();
      redis.set("lt:n", "mine");
      assertTrue(redis.exec().wasDiscarded(), "a watched key written by another client");
      assertEquals("9", redis.get("lt:n"));
    }
  }

  /**
   * Lettuce's client-side caching ({@code ClientSideCaching}, over RESP3 tracking): a value read
   * once is served from the client's own map, and a change by another connection empties that entry
   * through the server's invalidation, so the next read sees the new value.
   */
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
