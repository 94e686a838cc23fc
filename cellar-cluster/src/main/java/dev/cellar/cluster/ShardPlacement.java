package dev.cellar.cluster;

import java.util.List;

/**
 * Where a shard's replicas live: an order of the live nodes for each shard, the first being the
 * preferred leader and the first {@code replicas} holding its replicas. A placement is a pure
 * function of the shard number and the node list, so every node computes the same answer.
 */
public interface ShardPlacement {
  /**
   * The first {@code count} nodes of {@code shard}'s order among {@code nodes} (fewer if there are
   * fewer nodes), best first.
   */
  List<ClusterNode> rank(int shard, List<ClusterNode> nodes, int count);

  /** The preferred leader of {@code shard} among {@code nodes}. */
  default ClusterNode leader(int shard, List<ClusterNode> nodes) {
    List<ClusterNode> first = rank(shard, nodes, 1);
    if (first.isEmpty()) {
      throw new IllegalArgumentException("no nodes to place shard " + shard + " on");
    }
    return first.get(0);
  }
}
