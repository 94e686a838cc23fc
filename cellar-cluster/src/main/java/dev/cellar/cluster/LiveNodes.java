package dev.cellar.cluster;

import dev.cellar.server.cluster.ClusterSettings;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The cluster's live nodes, agreed through the metadata group. Its leader hears every member's
 * heartbeat answers; when the set it hears from differs from the agreed one at two checks in a row
 * (a second apart, so that one late answer moves nothing), it proposes the new set ({@link
 * MetadataEntry#LIVE}). Every node reads the agreed set from its replica of the group, and plans
 * leaderships from it ({@link LeadershipPlan}), so all nodes plan alike. Nodes outside the metadata
 * group (beyond its {@link ClusterTopology#METADATA_VOTERS}) are taken as live.
 *
 * <p>Before the group has agreed on any set, every configured node is taken as live: the plan is
 * then the one for a whole cluster, and the balancer moves a leadership only to a replica that
 * answers anyway.
 */
final class LiveNodes {
  private final ClusterTopology topology;
  private final ShardGroups groups;
  private final long aliveWithinMillis;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong calls = new AtomicLong();
  private Set<String> heardBefore;

  LiveNodes(ClusterTopology topology, ShardGroups groups, long aliveWithinMillis) {
    this.topology = topology;
    this.groups = groups;
    this.aliveWithinMillis = aliveWithinMillis;
  }

  /** The agreed live nodes, or every configured node while none are agreed. */
  Set<String> agreed() {
    Set<String> live = groups.metadata().live();
    if (live != null) {
      return live;
    }
    Set<String> all = new TreeSet<>();
    for (ClusterSettings.Node node : topology.settings().nodes()) {
      all.add(node.id());
    }
    return all;
  }

  /** On the metadata leader, proposes the live set it hears if it has changed; else nothing. */
  void check() {
    RaftServer.Division division = groups.metadataDivision();
    if (division == null
        || !division.getInfo().isLeader()
        || !division.getInfo().isLeaderReady()
        || division.getInfo().getRoleInfoProto().getRoleElapsedTimeMs() < aliveWithinMillis) {
      heardBefore = null; // a new leader hears every member before it judges any
      return;
    }
    Set<String> heard = heard(division.getInfo().getRoleInfoProto());
    boolean steady = heard.equals(heardBefore);
    heardBefore = heard;
    if (!steady || heard.equals(groups.metadata().live())) {
      return;
    }
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(ClusterTopology.peerId(topology.settings().nodeId()))
            .setGroupId(ClusterTopology.metadataGroupId())
            .setCallId(calls.incrementAndGet())
            .setMessage(Message.valueOf(ByteString.copyFrom(MetadataEntry.live(heard))))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    try {
      groups.server().submitClientRequestAsync(request);
    } catch (IOException notNow) {
      // the next check proposes again if the set is still new
    }
  }

  /** This leader, the members that answered within the window, and every non-member. */
  private Set<String> heard(RoleInfoProto role) {
    Set<String> heard = new HashSet<>();
    for (ClusterSettings.Node node : topology.settings().nodes()) {
      if (!topology.holdsMetadata(node.id())) {
        heard.add(node.id());
      }
    }
    heard.add(topology.settings().nodeId());
    if (role.hasLeaderInfo()) {
      List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
      for (ServerRpcProto follower : followers) {
        if (follower.getLastRpcElapsedTimeMs() <= aliveWithinMillis) {
          heard.add(RaftPeerId.valueOf(follower.getId().getId()).toString());
        }
      }
    }
    return new TreeSet<>(heard);
  }
}
