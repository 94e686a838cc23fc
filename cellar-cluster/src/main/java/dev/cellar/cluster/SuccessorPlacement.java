package dev.cellar.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Consistent hashing on a ring with one point per node: a shard's order is the nodes clockwise from
 * the shard's point. Kept as the comparison for {@link RendezvousPlacement}, not used to place
 * anything: when a node fails, every shard it led passes to the one node after it on the ring, so
 * that node carries twice its share while the others carry nothing more (the naive successor the
 * brief warns of). Weights are ignored.
 */
public final class SuccessorPlacement implements ShardPlacement {
  public static final SuccessorPlacement INSTANCE = new SuccessorPlacement();

  private SuccessorPlacement() {}

  @Override
  public List<ClusterNode> rank(int shard, List<ClusterNode> nodes, int count) {
    List<ClusterNode> ring = new ArrayList<>(nodes);
    ring.sort(
        Comparator.comparing(ClusterNode::idHash, Long::compareUnsigned)
            .thenComparing(ClusterNode::id));
    long point = Mix.mix64(0x632be59bd9b4e019L * (shard + 1L));
    int start = 0;
    while (start < ring.size() && Long.compareUnsigned(ring.get(start).idHash(), point) < 0) {
      start++;
    }
    List<ClusterNode> ranked = new ArrayList<>();
    for (int i = 0; i < Math.min(count, ring.size()); i++) {
      ranked.add(ring.get((start + i) % ring.size()));
    }
    return ranked;
  }
}
