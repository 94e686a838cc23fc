package dev.cellar.cluster;

import dev.cellar.server.cluster.ClusterSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The cluster's layout as every node computes it from the same settings: the slots of each shard
 * ({@link ClusterSettings#firstSlot}), each shard's replicas in {@link RendezvousPlacement}'s order
 * (the first the preferred leader, which {@link LeadershipBalancer} hands the leadership to
 * whenever it is up), and each shard's Raft group.
 */
final class ClusterTopology {
  private final ClusterSettings settings;
  private final Map<String, ClusterSettings.Node> byId;
  private final List<List<ClusterSettings.Node>> replicas;
  private final List<RaftGroup> groups;

  ClusterTopology(ClusterSettings settings) {
    this.settings = settings;
    this.byId =
        settings.nodes().stream()
            .collect(Collectors.toMap(ClusterSettings.Node::id, Function.identity()));
    List<ClusterNode> placed = settings.nodes().stream().map(n -> ClusterNode.of(n.id())).toList();
    this.replicas = new ArrayList<>(settings.shards());
    this.groups = new ArrayList<>(settings.shards());
    for (int shard = 0; shard < settings.shards(); shard++) {
      List<ClusterSettings.Node> order =
          RendezvousPlacement.INSTANCE.rank(shard, placed, settings.replicas()).stream()
              .map(n -> byId.get(n.id()))
              .toList();
      replicas.add(order);
      List<RaftPeer> peers = new ArrayList<>();
      for (ClusterSettings.Node node : order) {
        peers.add(
            RaftPeer.newBuilder()
                .setId(node.id())
                .setAddress(node.host() + ":" + node.raftPort())
                .build()); // equal priorities: see LeadershipBalancer
      }
      groups.add(RaftGroup.valueOf(groupId(shard), peers));
    }
  }

  ClusterSettings settings() {
    return settings;
  }

  int shards() {
    return settings.shards();
  }

  /** The shard's replicas, the preferred leader first. */
  List<ClusterSettings.Node> replicas(int shard) {
    return replicas.get(shard);
  }

  RaftGroup group(int shard) {
    return groups.get(shard);
  }

  ClusterSettings.Node node(String id) {
    return byId.get(id);
  }

  /** The shard whose group has id {@code id}, or -1. */
  int shardOf(RaftGroupId id) {
    for (int shard = 0; shard < groups.size(); shard++) {
      if (groups.get(shard).getGroupId().equals(id)) {
        return shard;
      }
    }
    return -1;
  }

  /** Whether {@code nodeId} holds a replica of {@code shard}. */
  boolean holds(String nodeId, int shard) {
    return replicas.get(shard).stream().anyMatch(n -> n.id().equals(nodeId));
  }

  /** A shard's Raft group id: a name-based UUID, the same on every node. */
  static RaftGroupId groupId(int shard) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("cellar-shard-" + shard).getBytes(StandardCharsets.UTF_8)));
  }

  /** A node's id as Redis Cluster shows ids: 40 hex digits (SHA-1 of the configured id). */
  static String redisId(String nodeId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(nodeId.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static RaftPeerId peerId(String nodeId) {
    return RaftPeerId.valueOf(nodeId);
  }
}
