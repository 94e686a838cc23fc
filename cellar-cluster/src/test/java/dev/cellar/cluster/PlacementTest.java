package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static final int SHARDS = 4096;

  private static List<ClusterNode> nodes(int n) {
    List<ClusterNode> nodes = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      nodes.add(ClusterNode.of("node-" + i));
    }
    return nodes;
  }

  @Test
  void replicasAreDistinctAndTheOrderIsStable() {
    List<ClusterNode> nodes = nodes(5);
    for (int shard = 0; shard < 200; shard++) {
      List<ClusterNode> replicas = RendezvousPlacement.INSTANCE.rank(shard, nodes, 3);
      assertEquals(3, replicas.size());
      assertEquals(3, new HashSet<>(replicas).size());
      // The order does not depend on the order the nodes are listed in.
      List<ClusterNode> reversed = new ArrayList<>(nodes.reversed());
      assertEquals(replicas, RendezvousPlacement.INSTANCE.rank(shard, reversed, 3));
      assertEquals(replicas.get(0), RendezvousPlacement.INSTANCE.leader(shard, nodes));
    }
  }

  /**
   * When a node fails, only the shards it led change leader, and they spread over every survivor
   * about evenly; a successor ring hands them all to one node.
   */
  @Test
  void aFailedNodesLeadershipsSpreadOverAllSurvivors() {
    List<ClusterNode> nodes = nodes(5);
    for (ClusterNode failed : nodes) {
      List<ClusterNode> survivors = new ArrayList<>(nodes);
      survivors.remove(failed);
      Map<ClusterNode, Integer> inherited = new HashMap<>();
      Map<ClusterNode, Integer> inheritedBySuccessor = new HashMap<>();
      for (int shard = 0; shard < SHARDS; shard++) {
        ClusterNode before = RendezvousPlacement.INSTANCE.leader(shard, nodes);
        ClusterNode after = RendezvousPlacement.INSTANCE.leader(shard, survivors);
        if (before.equals(failed)) {
          inherited.merge(after, 1, Integer::sum);
        } else {
          assertEquals(before, after, "a shard the failed node did not lead kept its leader");
        }
        if (SuccessorPlacement.INSTANCE.leader(shard, nodes).equals(failed)) {
          inheritedBySuccessor.merge(
              SuccessorPlacement.INSTANCE.leader(shard, survivors), 1, Integer::sum);
        }
      }
      int total = inherited.values().stream().mapToInt(Integer::intValue).sum();
      assertEquals(4, inherited.size(), "every survivor inherits some of the failed node's shards");
      for (int share : inherited.values()) {
        // 4096 shards: the failed node led about 819; each survivor's quarter of them is about
        // 205, with a standard deviation near 12. Six of those either way.
        assertTrue(Math.abs(share - total / 4.0) < 75, "share " + share + " of " + total);
      }
      assertEquals(1, inheritedBySuccessor.size(), "a successor ring hands them all to one node");
    }
  }

  @Test
  void leadershipFollowsWeight() {
    List<ClusterNode> nodes =
        List.of(new ClusterNode("a", 1), new ClusterNode("b", 1), new ClusterNode("c", 2));
    Map<String, Integer> led = new HashMap<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      led.merge(RendezvousPlacement.INSTANCE.leader(shard, nodes).id(), 1, Integer::sum);
    }
    // Expected 1024, 1024 and 2048; the standard deviation is under 30.
    assertTrue(Math.abs(led.get("a") - 1024) < 150, led.toString());
    assertTrue(Math.abs(led.get("b") - 1024) < 150, led.toString());
    assertTrue(Math.abs(led.get("c") - 2048) < 150, led.toString());
  }

  @Test
  void badNodesAreRefused() {
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> new ClusterNode("", 1));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> new ClusterNode("x", 0));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> new ClusterNode("x", Double.NaN));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> RendezvousPlacement.INSTANCE.leader(0, List.of()));
  }
}
