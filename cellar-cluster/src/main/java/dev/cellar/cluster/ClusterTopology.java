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
 * whenever it is up), each shard's Raft group, and the metadata group.
 */
final class ClusterTopology {
  private final ClusterSettings settings;
  private final Map<String, ClusterSettings.Node> byId;
  private final List<List<ClusterSettings.Node>> replicas;
  private final List<RaftGroup> groups;
  private final RaftGroup metadata;

  /**
   * The metadata group's members at most: a Raft group of every node would make each change wait
   * for a majority of all of them. The rest are not voters (and, until membership changes are
   * built, not members at all).
   */
  static final int METADATA_VOTERS = 7;

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
        peers.add(peer(node));
      }
      groups.add(RaftGroup.valueOf(groupId(shard), peers));
    }
    List<RaftPeer> voters = new ArrayList<>();
    for (ClusterNode n : RendezvousPlacement.INSTANCE.rank(-1, placed, METADATA_VOTERS)) {
      voters.add(peer(byId.get(n.id())));
    }
    this.metadata = RaftGroup.valueOf(metadataGroupId(), voters);
  }

  private static RaftPeer peer(ClusterSettings.Node node) {
    return RaftPeer.newBuilder()
        .setId(node.id())
        .setAddress(node.host() + ":" + node.raftPort())
        .build(); // equal priorities: see LeadershipBalancer
  }

  /** The metadata group: up to {@link #METADATA_VOTERS} nodes, chosen by rendezvous. */
  RaftGroup metadataGroup() {
    return metadata;
  }

  /** Whether {@code nodeId} is a member of the metadata group. */
  boolean holdsMetadata(String nodeId) {
    return metadata.getPeer(peerId(nodeId)) != null;
  }

  /** Each shard's replica ids, preferred first: what {@link LeadershipPlan} plans over. */
  List<List<String>> replicaIds() {
    return replicas.stream()
        .map(order -> order.stream().map(ClusterSettings.Node::id).toList())
        .toList();
  }

  /** The metadata group's id: a name-based UUID, the same on every node. */
  static RaftGroupId metadataGroupId() {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes("cellar-metadata".getBytes(StandardCharsets.UTF_8)));
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
