package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * Three cluster nodes (real servers, in this JVM, on real sockets) and Jedis's cluster client,
 * which knows nothing of Cellar: it reads CLUSTER SLOTS, follows MOVED, and carries on when a node
 * goes away.
 */
class ClusterNodesTest {
  @TempDir Path dir;

  @Test
  void aClusterClientWritesAndReadsEverySlotAndFollowsALostLeader() throws Exception {
    try (TestCluster nodes = new TestCluster(dir, 3, 6)) {
      nodes.awaitOk();
      try (JedisCluster cluster = nodes.client()) {
        for (int i = 0; i < 300; i++) {
          assertEquals("OK", set(cluster, "key:" + i, "v" + i));
        }
        for (int i = 0; i < 300; i++) {
          assertEquals("v" + i, cluster.get("key:" + i));
        }
        assertEquals(1, cluster.incr("{user}.visits"));
        assertEquals(11, cluster.incrBy("{user}.visits", 10));
        // Redis counts a key named twice in one DEL once.
        assertEquals(1, cluster.del("{user}.visits", "{user}.missing", "{user}.visits"));

        // Lose a node: every shard it led elects another leader among the other two, and the
        // client, sent on by the survivors, finds them.
        nodes.stop(0);
        for (int i = 0; i < 300; i++) {
          assertEquals("OK", set(cluster, "key:" + i, "w" + i));
        }
        for (int i = 0; i < 300; i++) {
          assertEquals("w" + i, cluster.get("key:" + i));
        }
        assertEquals(1, cluster.incr("counter"));
      }
      // Back again, it catches up from the others; the whole cluster then restarts, and no
      // entry is applied twice (INCR is not idempotent) or lost.
      nodes.start(0);
      nodes.awaitOk();
      for (int i = 0; i < 3; i++) {
        nodes.stop(i);
      }
      for (int i = 0; i < 3; i++) {
        nodes.start(i);
      }
      nodes.awaitOk();
      try (JedisCluster cluster = nodes.client()) {
        for (int i = 0; i < 300; i++) {
          assertEquals("w" + i, cluster.get("key:" + i));
        }
        assertEquals(2, cluster.incr("counter"));
      }
    }
  }

  @Test
  void clusterCommandsAnswerAsRedisClusterDoes() throws Exception {
    try (TestCluster nodes = new TestCluster(dir, 3, 6)) {
      nodes.awaitOk();
      try (Jedis jedis = new Jedis("127.0.0.1", nodes.port(1))) {
        assertEquals(12182, jedis.clusterKeySlot("foo"));
        assertEquals(ClusterTopology.redisId("n1"), jedis.clusterMyId());
        List<Object> slots = jedis.clusterSlots();
        assertEquals(6, slots.size());
        long covered = 0;
        for (Object range : slots) {
          List<?> r = (List<?>) range;
          covered += (Long) r.get(1) - (Long) r.get(0) + 1;
          assertEquals(5, r.size(), "a range, its leader and two replicas");
        }
        assertEquals(16384, covered);
        String nodesText = jedis.clusterNodes();
        assertEquals(3, nodesText.lines().count(), nodesText);
        assertTrue(nodesText.contains("myself,master"), nodesText);
        // A key is served where CLUSTER SLOTS says, and any other node sends the client there.
        for (int i = 0; i < 30; i++) {
          String reply;
          try {
            reply = jedis.set("k" + i, "v");
          } catch (JedisMovedDataException e) {
            assertEquals(jedis.clusterKeySlot("k" + i), e.getSlot());
            try (Jedis target = new Jedis(e.getTargetNode())) {
              reply = target.set("k" + i, "v");
            }
          }
          assertEquals("OK", reply);
        }
        JedisDataException crossSlot =
            assertThrows(JedisDataException.class, () -> jedis.del("a", "b"));
        assertEquals(
            "CROSSSLOT Keys in request don't hash to the same slot", crossSlot.getMessage());
        assertEquals(
            "ERR SELECT is not allowed in cluster mode",
            assertThrows(JedisDataException.class, () -> jedis.select(1)).getMessage());
        assertEquals("OK", jedis.select(0));
        JedisDataException refused =
            assertThrows(JedisDataException.class, () -> jedis.hset("{h}", "f", "v"));
        assertTrue(
            refused.getMessage().contains("not served by a Cellar cluster"), refused.getMessage());
      }
    }
  }

  /**
   * SET through the cluster client, sent again while the node answers TRYAGAIN (a shard changing
   * leaders; Cellar answers it only for a command it did not run), as Redis Cluster clients such as
   * redis-py do and Jedis does not.
   */
  static String set(redis.clients.jedis.JedisCluster cluster, String key, String value)
      throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return cluster.set(key, value);
      } catch (redis.clients.jedis.exceptions.JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        if (!(message.startsWith("TRYAGAIN") || message.startsWith("UNKNOWN"))
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }
}
