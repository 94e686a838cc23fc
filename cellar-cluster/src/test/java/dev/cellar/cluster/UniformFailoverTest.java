package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/**
 * Five real nodes with the default 20 shards: the leaderships settle at 4 a node, and when a node
 * is lost, at 5 on each survivor (the metadata group agrees the smaller live set, and every shard
 * leader follows the {@link LeadershipPlan}). The counts are each node's own word in CLUSTER SLOTS.
 */
class UniformFailoverTest {
  @TempDir Path dir;

  @Test
  void aLostNodesLeadershipsSpreadEvenlyOverTheSurvivors() throws Exception {
    try (TestCluster nodes = new TestCluster(dir, 5, 20)) {
      nodes.awaitOk();
      awaitLeaderships(nodes, Map.of(0, 4, 1, 4, 2, 4, 3, 4, 4, 4));
      nodes.stop(2);
      awaitLeaderships(nodes, Map.of(0, 5, 1, 5, 3, 5, 4, 5));
      // The survivors show the lost node failed, as Redis shows a node its peers agree is down.
      try (Jedis jedis = new Jedis("127.0.0.1", nodes.port(0))) {
        String lost =
            jedis
                .clusterNodes()
                .lines()
                .filter(l -> l.contains(":" + nodes.port(2) + "@"))
                .findFirst()
                .orElseThrow();
        assertTrue(lost.contains("master,fail") && lost.endsWith("disconnected"), lost);
      }
      try (JedisCluster cluster = nodes.client()) {
        for (int i = 0; i < 200; i++) {
          assertEquals("OK", ClusterNodesTest.set(cluster, "key:" + i, "v" + i));
          assertEquals("v" + i, cluster.get("key:" + i));
        }
      }
      // Back again, it is given its share once more.
      nodes.start(2);
      nodes.awaitOk();
      awaitLeaderships(nodes, Map.of(0, 4, 1, 4, 2, 4, 3, 4, 4, 4));
      try (Jedis jedis = new Jedis("127.0.0.1", nodes.port(0))) {
        assertFalse(jedis.clusterNodes().contains("fail"), jedis.clusterNodes());
      }
    }
  }

  private static void awaitLeaderships(TestCluster nodes, Map<Integer, Integer> expected)
      throws InterruptedException {
    Map<Integer, Integer> last = Map.of();
    // Elections, the metadata leader's two checks a second apart, then each leader's settle time
    // (3 s) and a transfer: well under a minute.
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      last = nodes.leaderships();
      if (last.equals(new TreeMap<>(expected))) {
        return;
      }
      Thread.sleep(250);
    }
    assertEquals(new TreeMap<>(expected), last, "leaderships by node");
  }
}
