package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The leadership plan against the two placements it replaces: a shard's first live node in
 * rendezvous order, and a successor ring. Cluster sizes and shard counts are those a cluster starts
 * with by default (4 shards a node, 3 replicas).
 */
class LeadershipPlanTest {
  private static List<String> ids(int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add("node-" + i);
    }
    return ids;
  }

  private static List<List<String>> orders(ShardPlacement placement, List<String> ids, int shards) {
    List<ClusterNode> nodes = ids.stream().map(ClusterNode::of).toList();
    List<List<String>> orders = new ArrayList<>();
    for (int shard = 0; shard < shards; shard++) {
      orders.add(placement.rank(shard, nodes, 3).stream().map(ClusterNode::id).toList());
    }
    return orders;
  }

  private static Map<String, Integer> counts(String[] leaders, Set<String> live) {
    Map<String, Integer> counts = new TreeMap<>();
    live.forEach(id -> counts.put(id, 0));
    for (String leader : leaders) {
      if (leader != null) {
        counts.merge(leader, 1, Integer::sum);
      }
    }
    return counts;
  }

  private static String[] firstLive(List<List<String>> orders, Set<String> live) {
    String[] leaders = new String[orders.size()];
    for (int shard = 0; shard < leaders.length; shard++) {
      leaders[shard] = orders.get(shard).stream().filter(live::contains).findFirst().orElse(null);
    }
    return leaders;
  }

  private static int spread(Map<String, Integer> counts) {
    return Collections.max(counts.values()) - Collections.min(counts.values());
  }

  /** The case: 5 nodes, one killed, each survivor within 10% of the mean. */
  @Test
  void fiveNodesLessOneShareTheLeadershipsEvenly() {
    List<String> ids = ids(5);
    List<List<String>> orders = orders(RendezvousPlacement.INSTANCE, ids, 20);
    for (String failed : ids) {
      Set<String> live = new TreeSet<>(ids);
      live.remove(failed);
      Map<String, Integer> planned = counts(LeadershipPlan.plan(orders, live), live);
      double mean = 20 / 4.0;
      for (var e : planned.entrySet()) {
        assertTrue(
            Math.abs(e.getValue() - mean) <= 0.1 * mean,
            e.getKey() + " leads " + e.getValue() + " of 20 shards, mean " + mean + ": " + planned);
      }
      System.out.printf(
          "without %s: planned %s, first live in rendezvous order %s, successor ring %s%n",
          failed,
          planned,
          counts(firstLive(orders, live), live),
          counts(firstLive(orders(SuccessorPlacement.INSTANCE, ids, 20), live), live));
    }
  }

  /** From 3 to 9 nodes, whole and less one or two: counts never differ by more than one. */
  @Test
  void countsDifferByAtMostOneWheneverTheReplicaSetsAllowIt() {
    for (int n = 3; n <= 9; n++) {
      List<String> ids = ids(n);
      List<List<String>> orders = orders(RendezvousPlacement.INSTANCE, ids, 4 * n);
      List<Set<String>> lives = new ArrayList<>();
      lives.add(new TreeSet<>(ids));
      for (String a : ids) {
        Set<String> less = new TreeSet<>(ids);
        less.remove(a);
        lives.add(less);
        for (String b : ids) {
          if (n >= 5 && a.compareTo(b) < 0) {
            Set<String> lessTwo = new TreeSet<>(less);
            lessTwo.remove(b);
            lives.add(lessTwo);
          }
        }
      }
      for (Set<String> live : lives) {
        String[] leaders = LeadershipPlan.plan(orders, live);
        for (int shard = 0; shard < leaders.length; shard++) {
          assertNotNull(leaders[shard], "shard " + shard + " has live replicas");
          assertTrue(live.contains(leaders[shard]));
          assertTrue(orders.get(shard).contains(leaders[shard]), "a leader holds a replica");
        }
        Map<String, Integer> planned = counts(leaders, live);
        assertTrue(spread(planned) <= 1, n + " nodes, live " + live + ": " + planned);
      }
    }
  }

  @Test
  void thePlanIsAFunctionOfItsInputsAlone() {
    List<String> ids = ids(7);
    List<List<String>> orders = orders(RendezvousPlacement.INSTANCE, ids, 28);
    Set<String> live = new TreeSet<>(ids);
    live.remove("node-3");
    Set<String> shuffled = new HashSet<>(List.of(live.toArray(String[]::new)));
    assertArrayEquals(LeadershipPlan.plan(orders, live), LeadershipPlan.plan(orders, shuffled));
  }

  /** A node that fails moves few leaderships besides its own: most shards keep their leader. */
  @Test
  void aFailureMovesLittleBesidesTheFailedNodesShards() {
    List<String> ids = ids(5);
    List<List<String>> orders = orders(RendezvousPlacement.INSTANCE, ids, 20);
    String[] whole = LeadershipPlan.plan(orders, new TreeSet<>(ids));
    for (String failed : ids) {
      Set<String> live = new TreeSet<>(ids);
      live.remove(failed);
      String[] less = LeadershipPlan.plan(orders, live);
      int moved = 0;
      int orphaned = 0;
      for (int shard = 0; shard < whole.length; shard++) {
        if (whole[shard].equals(failed)) {
          orphaned++;
        } else if (!whole[shard].equals(less[shard])) {
          moved++;
        }
      }
      assertEquals(4, orphaned, "each node leads 4 of 20 shards in the whole cluster");
      assertTrue(moved <= orphaned, moved + " other shards moved when " + failed + " failed");
    }
  }

  @Test
  void noLiveReplicaNoLeader() {
    List<List<String>> orders = List.of(List.of("a", "b"), List.of("c", "d"));
    String[] leaders = LeadershipPlan.plan(orders, Set.of("a", "b"));
    assertEquals(null, leaders[1]);
    assertTrue(Set.of("a", "b").contains(leaders[0]));
    assertArrayEquals(new String[2], LeadershipPlan.plan(orders, Set.of()));
  }
}
