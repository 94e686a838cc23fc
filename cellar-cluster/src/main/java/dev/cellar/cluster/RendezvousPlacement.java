package dev.cellar.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Weighted rendezvous (highest random weight) hashing, the cluster's placement.
 *
 * <p>Every (shard, node) pair gets an independent pseudo-random draw {@code u} in (0, 1); the
 * node's score is {@code -weight / ln(u)}, and a shard's order is its nodes by falling score. The
 * scores of one shard are independent of each other, so when a node fails, each shard it led passes
 * to the node with the next score, which is a uniform draw among the survivors (weighted): the
 * failed node's load spreads evenly over all of them rather than falling on one neighbour, and no
 * other shard moves. With weights, a node's chance of the top score is its share of the total
 * weight (the logarithmic method of Schindelhauer and Schomaker, "Weighted distributed hash
 * tables", SPAA 2005).
 */
public final class RendezvousPlacement implements ShardPlacement {
  /** The one instance: the placement has no state. */
  public static final RendezvousPlacement INSTANCE = new RendezvousPlacement();

  private RendezvousPlacement() {}

  @Override
  public List<ClusterNode> rank(int shard, List<ClusterNode> nodes, int count) {
    int n = nodes.size();
    double[] scores = new double[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      scores[i] = score(shard, nodes.get(i));
      order[i] = i;
    }
    // Ties (equal scores need equal 53-bit draws) fall to the node id, so the order is total.
    Arrays.sort(
        order,
        (a, b) -> {
          int c = Double.compare(scores[b], scores[a]);
          return c != 0 ? c : nodes.get(a).id().compareTo(nodes.get(b).id());
        });
    List<ClusterNode> ranked = new ArrayList<>(Math.min(count, n));
    for (int i = 0; i < Math.min(count, n); i++) {
      ranked.add(nodes.get(order[i]));
    }
    return ranked;
  }

  /** The node's score for the shard: {@code -weight / ln(u)}, u uniform in (0, 1). */
  static double score(int shard, ClusterNode node) {
    long h = Mix.mix64(node.idHash() ^ Mix.mix64(0x9e3779b97f4a7c15L * (shard + 1L)));
    double u = ((h >>> 11) + 0.5) / (1L << 53); // strictly inside (0, 1)
    return -node.weight() / Math.log(u);
  }
}
