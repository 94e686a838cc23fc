package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Jedis, as an application uses it: a single connection and a pooled {@link RedisClient}, over
 * RESP2 and RESP3 (Jedis sends {@code HELLO 3} and {@code CLIENT SETINFO} on connect), with
 * pipelining, binary values, and the exceptions Jedis raises from error replies.
 */
class JedisClientTest extends AbstractConformanceTest {

  private Jedis connect(RedisProtocol protocol) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.port()),
        DefaultJedisClientConfig.builder()
            .protocol(protocol)
            .timeoutMillis(10_000)
            .clientName("jedis-test")
            .build());
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void handshakeNegotiatesTheProtocol(RedisProtocol protocol) {
    try (Jedis jedis = connect(protocol)) {
      assertEquals("PONG", jedis.ping());
      String info = jedis.clientInfo();
      assertTrue(info.contains(" resp=" + (protocol == RedisProtocol.RESP3 ? 3 : 2)), info);
      assertEquals("jedis-test", jedis.clientGetname());
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void stringCommands(RedisProtocol protocol) {
    try (Jedis jedis = connect(protocol)) {
      assertEquals("OK", jedis.set("k", "v"));
      assertEquals("v", jedis.get("k"));
      assertNull(jedis.get("missing"));
      assertNull(jedis.setGet("new", "1", new SetParams()), "SET ... GET on a missing key");
      assertEquals("1", jedis.setGet("new", "2", new SetParams().xx()));
      assertNull(jedis.set("k", "w", new SetParams().nx()));
      assertEquals("OK", jedis.set("k", "w", new SetParams().xx().ex(100)));
      assertEquals(100, jedis.ttl("k"));
      assertEquals(1, jedis.setnx("n", "0"));
      assertEquals(5, jedis.incrBy("n", 5));
      assertEquals(4, jedis.decr("n"));
      assertEquals(5.5, jedis.incrByFloat("n", 1.5));
      assertEquals("OK", jedis.mset("a", "1", "b", "2"));
      assertEquals(java.util.Arrays.asList("1", "2", null), jedis.mget("a", "b", "c"));
      assertEquals(0, jedis.msetnx("c", "3", "a", "x"));
      assertEquals(6, jedis.append("a", "23456"));
      assertEquals(6, jedis.strlen("a"));
      assertEquals("2345", jedis.getrange("a", 1, 4));
      assertEquals(6, jedis.setrange("a", 0, "X"));
      assertEquals("X23456", jedis.getDel("a"));
      assertEquals("w", jedis.getSet("k", "z"));
      assertEquals("z", jedis.getEx("k", new GetExParams().px(50_000)));
      assertTrue(jedis.pttl("k") > 40_000);
      assertEquals(1, jedis.persist("k"));
      assertEquals(-1, jedis.ttl("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void keyspaceAndServerCommands(RedisProtocol protocol) throws Exception {
    try (Jedis jedis = connect(protocol)) {
      for (int i = 0; i < 250; i++) {
        jedis.set("key:" + i, Integer.toString(i));
      }
      assertEquals(250, jedis.keys("key:*").size());
      assertTrue(jedis.dbSize() >= 250); // it may count keys that expired in earlier tests
      assertEquals(2, jedis.exists("key:1", "key:2", "nope"));
      assertEquals("string", jedis.type("key:1"));
      assertEquals("none", jedis.type("nope"));
      assertEquals("OK", jedis.rename("key:1", "renamed"));
      assertEquals(1, jedis.expire("renamed", 100));
      assertEquals(100, jedis.ttl("renamed"));
      assertEquals(
          Set.of(
              "key:10", "key:100", "key:101", "key:102", "key:103", "key:104", "key:105", "key:106",
              "key:107", "key:108", "key:109"),
          jedis.keys("key:10*"));
      Set<String> scanned = new HashSet<>();
      String cursor = ScanParams.SCAN_POINTER_START;
      do {
        ScanResult<String> page = jedis.scan(cursor, new ScanParams().match("key:*").count(50));
        scanned.addAll(page.getResult());
        cursor = page.getCursor();
      } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
      assertEquals(249, scanned.size());
      assertEquals(2, jedis.del("key:2", "key:3", "nope"));
      String random = jedis.randomKey();
      assertTrue(random.startsWith("key:") || random.equals("renamed"), random);
      Map<String, String> config = jedis.configGet("maxmemory");
      assertEquals("0", config.get("maxmemory"));
      assertTrue(jedis.info("server").contains("redis_version:"));
      List<String> time = jedis.time();
      assertTrue(
          Math.abs(Long.parseLong(time.get(0)) - System.currentTimeMillis() / 1000) <= 5,
          time.toString());
      assertEquals("OK", jedis.flushDB());
      assertEquals(Set.of(), jedis.keys("*"));
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void errorRepliesBecomeExceptionsAndTheConnectionGoesOn(RedisProtocol protocol) {
    try (Jedis jedis = connect(protocol)) {
      jedis.set("text", "abc");
      JedisDataException notInteger =
          assertThrows(JedisDataException.class, () -> jedis.incr("text"));
      assertEquals("ERR value is not an integer or out of range", notInteger.getMessage());
      jedis.set("max", Long.toString(Long.MAX_VALUE));
      JedisDataException overflow = assertThrows(JedisDataException.class, () -> jedis.incr("max"));
      assertEquals("ERR increment or decrement would overflow", overflow.getMessage());
      JedisDataException noKey =
          assertThrows(JedisDataException.class, () -> jedis.rename("nope", "x"));
      assertEquals("ERR no such key", noKey.getMessage());
      JedisDataException invalidExpire =
          assertThrows(JedisDataException.class, () -> jedis.setex("k", -1, "v"));
      assertEquals("ERR invalid expire time in 'setex' command", invalidExpire.getMessage());
      assertEquals("PONG", jedis.ping());
      assertEquals("abc", jedis.get("text"));
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void binaryKeysAndValues(RedisProtocol protocol) {
    byte[] every = new byte[256];
    for (int i = 0; i < every.length; i++) {
      every[i] = (byte) i;
    }
    try (Jedis jedis = connect(protocol)) {
      assertEquals("OK", jedis.set(every, every));
      assertArrayEquals(every, jedis.get(every));
      byte[] large = new byte[2 * 1024 * 1024];
      new java.util.Random(7).nextBytes(large);
      jedis.set("large".getBytes(), large);
      assertArrayEquals(large, jedis.get("large".getBytes()));
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void pipelining(RedisProtocol protocol) {
    try (Jedis jedis = connect(protocol)) {
      Pipeline p = jedis.pipelined();
      List<Response<String>> gets = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        p.set("p:" + i, "v" + i);
        gets.add(p.get("p:" + i));
        p.incr("p:count");
      }
      Response<Long> failed = p.incr("p:0");
      Response<String> afterError = p.get("p:1999");
      p.sync();
      for (int i = 0; i < 2000; i++) {
        assertEquals("v" + i, gets.get(i).get());
      }
      assertThrows(JedisDataException.class, failed::get);
      assertEquals("v1999", afterError.get());
      assertEquals("2000", jedis.get("p:count"));
    }
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void transactionsAndWatch(RedisProtocol protocol) {
    try (Jedis jedis = connect(protocol);
        Jedis other = connect(protocol)) {
      jedis.set("tx:n", "1");
      redis.clients.jedis.Transaction t = jedis.multi();
      t.incr("tx:n");
      t.set("tx:s", "v");
      t.get("tx:s");
      t.incr("tx:s"); // fails inside EXEC; the others stand
      List<Object> results = t.exec();
      assertEquals(4, results.size());
      assertEquals(2L, results.get(0));
      assertEquals("OK", results.get(1));
      assertEquals("v", results.get(2));
      assertInstanceOf(redis.clients.jedis.exceptions.JedisDataException.class, results.get(3));
      assertEquals("2", jedis.get("tx:n"));

      jedis.watch("tx:n");
      other.set("tx:n", "100");
      t = jedis.multi();
      t.set("tx:n", "mine");
      assertNull(t.exec(), "a watched key written by another client aborts EXEC");
      assertEquals("100", jedis.get("tx:n"));

      t = jedis.multi();
      t.set("tx:gone", "1");
      t.discard();
      assertNull(jedis.get("tx:gone"));
    }
  }

  @Test
  void expiredKeysVanish() throws Exception {
    try (Jedis jedis = connect(RedisProtocol.RESP2)) {
      jedis.set("short", "v", new SetParams().px(30));
      Thread.sleep(80);
      assertNull(jedis.get("short"));
      assertEquals(-2, jedis.ttl("short"));
    }
  }

  @Test
  void pooledClientFromManyThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (RedisClient client = RedisClient.create("127.0.0.1", server.port())) {
      List<Future<?>> tasks = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        tasks.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 250; i++) {
                    client.incr("shared-counter");
                    client.set("t" + thread + ":" + i, "v");
                  }
                }));
      }
      for (Future<?> task : tasks) {
        task.get(60, TimeUnit.SECONDS);
      }
      assertEquals("1000", client.get("shared-counter"));
      assertEquals(1000, client.keys("t*").size());
    } finally {
      pool.shutdownNow();
    }
  }
}
