package dev.cellar.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which node should lead each shard, given the nodes that are up: rendezvous order with bounded
 * loads, then balanced exactly.
 *
 * <h2>Why not the first live node of each shard's order</h2>
 *
 * Rendezvous hashing spreads a failed node's shards over the survivors as independent draws, which
 * is uniform in expectation but not in each case: with the few shards a cluster runs (a Raft group
 * each, so tens, not thousands), the counts scatter. At 20 shards on 5 nodes, the first live node
 * of each order gave survivors from 3 to 8 leaderships where the mean is 5. Redis Cluster hands a
 * dead master's slots to its one replica, which doubles that node's load. Here each shard goes to
 * the first node of its order that has fewer than {@code ceil(shards / live)} leaderships already
 * (consistent hashing with bounded loads, Mirrokni, Thorup and Zadimoghaddam, SODA 2018), and what
 * the greedy pass leaves uneven is evened out by moving leaderships along paths of shards: node A
 * gives a shard to B, which gives one to C, until a node two below A's count is reached (a shortest
 * path, found breadth first). When no such path is left, no node can lose a leadership to a node
 * two below it by any chain of moves, so the counts are as even as the shards' replica sets allow
 * (the semi-matching optimum of Harvey, Ladner, Lovász and Tamir, 2006).
 *
 * <p>The plan is a pure function of the replica orders and the set of live nodes, so every node
 * computes the same one from the metadata group's live set. A node that leaves or returns moves
 * only the leaderships it gives or takes, give or take the short paths that even the counts out.
 */
final class LeadershipPlan {
  private LeadershipPlan() {}

  /**
   * The leader of each shard: an id from {@code live} among that shard's replicas, or null for a
   * shard with no live replica.
   *
   * @param orders each shard's replicas, preferred first
   */
  static String[] plan(List<List<String>> orders, Set<String> live) {
    int shards = orders.size();
    String[] leader = new String[shards];
    Map<String, Integer> load = new HashMap<>();
    int placeable = 0;
    for (List<String> order : orders) {
      boolean any = false;
      for (String id : order) {
        if (live.contains(id)) {
          load.putIfAbsent(id, 0);
          any = true;
        }
      }
      placeable += any ? 1 : 0;
    }
    if (load.isEmpty()) {
      return leader;
    }
    int cap = (placeable + load.size() - 1) / load.size();
    for (int shard = 0; shard < shards; shard++) {
      String first = null;
      for (String id : orders.get(shard)) {
        if (!live.contains(id)) {
          continue;
        }
        if (first == null) {
          first = id;
        }
        if (load.get(id) < cap) {
          leader[shard] = id;
          break;
        }
      }
      if (leader[shard] == null) {
        leader[shard] = first; // every live replica is at the cap: the path pass evens it out
      }
      if (leader[shard] != null) {
        load.merge(leader[shard], 1, Integer::sum);
      }
    }
    while (shiftOnce(orders, live, leader, load)) {
      // each shift lowers the sum of squared counts by at least 2, so this ends
    }
    return leader;
  }

  /**
   * Finds one shortest path of moves from a most loaded node to a node at least two below it, and
   * makes it; false if there is none from any node.
   */
  private static boolean shiftOnce(
      List<List<String>> orders, Set<String> live, String[] leader, Map<String, Integer> load) {
    // Most loaded first; ties by id, so that every node computes the same plan.
    List<String> nodes = new ArrayList<>(new TreeSet<>(load.keySet()));
    nodes.sort((a, b) -> Integer.compare(load.get(b), load.get(a)));
    for (String from : nodes) {
      int start = load.get(from);
      Map<String, Integer> via = new HashMap<>(); // node reached -> the shard that reached it
      via.put(from, -1);
      ArrayDeque<String> queue = new ArrayDeque<>();
      queue.add(from);
      while (!queue.isEmpty()) {
        String at = queue.poll();
        for (int shard = 0; shard < leader.length; shard++) {
          if (!at.equals(leader[shard])) {
            continue;
          }
          for (String next : orders.get(shard)) {
            if (!live.contains(next) || via.containsKey(next)) {
              continue;
            }
            via.put(next, shard);
            if (load.get(next) <= start - 2) {
              shift(next, via, leader, load);
              return true;
            }
            queue.add(next);
          }
        }
      }
    }
    return false;
  }

  /** Moves each shard on the path that ends at {@code to} to the node it reached. */
  private static void shift(
      String to, Map<String, Integer> via, String[] leader, Map<String, Integer> load) {
    String at = to;
    while (via.get(at) >= 0) {
      int shard = via.get(at);
      String previous = leader[shard];
      leader[shard] = at;
      load.merge(at, 1, Integer::sum);
      load.merge(previous, -1, Integer::sum);
      at = previous;
    }
  }
}
