package dev.cellar.cluster;

import dev.cellar.CellarOptions;
import dev.cellar.server.cluster.ClusterReply;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.cluster.ClusterSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StaleReadException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A cluster node's routing: each slot's shard is a Raft group; a command on a slot is run here when
 * this node's member of the group leads it (or, for a {@code READONLY} read, when this node holds a
 * replica at all), and the client is sent to the leader otherwise.
 *
 * <p>Where the leader of a shard this node holds no replica of is, this node cannot know without a
 * metadata group (not built yet): it sends the client to the shard's preferred leader, which sends
 * it on if the leadership has moved. Commands are submitted to the local member directly, not
 * through a Raft client and the network.
 */
final class RaftClusterRouting implements ClusterRouting {
  private final ClusterTopology topology;
  private final ShardGroups groups;
  private final ClusterReplies replies;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong calls = new AtomicLong();
  private final RaftPeerId self;
  private final LeadershipBalancer balancer;

  /**
   * How long a command refused because its shard's leader is handing over (or has just been elected
   * and is not ready) is tried again before the client is told to try again itself.
   */
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(3);

  private static final Executor RETRY_DELAY =
      CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS);

  private RaftClusterRouting(ClusterTopology topology, ShardGroups groups) {
    this.topology = topology;
    this.groups = groups;
    this.self = ClusterTopology.peerId(topology.settings().nodeId());
    this.balancer = new LeadershipBalancer(topology, groups, 2 * groups.electionTimeoutMillis());
    this.replies = new ClusterReplies(topology, this::leaderOf, groups, balancer::isLive);
  }

  static RaftClusterRouting start(ClusterSettings settings, CellarOptions storeOptions) {
    ClusterTopology topology = new ClusterTopology(settings);
    try {
      RaftClusterRouting routing =
          new RaftClusterRouting(topology, ShardGroups.start(topology, storeOptions));
      routing.balancer.start();
      return routing;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the node's shard replicas", e);
    }
  }

  @Override
  public Route route(int slot, boolean write, boolean stale) {
    int shard = topology.settings().shardOf(slot);
    RaftServer.Division division = groups.division(shard);
    if (division == null) {
      return routeToLeader(shard);
    }
    RaftPeerId leader = division.getInfo().getLeaderId();
    if (stale || division.getInfo().isLeader() || leader == null || leader.equals(self)) {
      // Here too while the group elects or hands over: the command waits for the outcome.
      return new Route.Here();
    }
    return routeToLeader(shard);
  }

  private Route routeToLeader(int shard) {
    ClusterSettings.Node leader = leaderOf(shard);
    if (leader == null) {
      return new Route.Down("CLUSTERDOWN The shard of this slot has no leader now; try again");
    }
    if (leader.id().equals(topology.settings().nodeId())) {
      // This node's member leads by the last it heard but is not leader now: an election runs.
      return new Route.Down("TRYAGAIN The shard of this slot is electing a leader; try again");
    }
    return new Route.Moved(leader.host(), leader.port());
  }

  /** The node leading {@code shard} as far as this node knows, or null while none is known. */
  ClusterSettings.Node leaderOf(int shard) {
    RaftServer.Division division = groups.division(shard);
    if (division == null) {
      return balancer.plannedLeader(shard); // not a member: where the plan puts the leadership
    }
    if (division.getInfo().isLeader()) {
      return topology.settings().self();
    }
    RaftPeerId leader = division.getInfo().getLeaderId();
    return leader == null ? null : topology.node(leader.toString());
  }

  @Override
  public CompletableFuture<byte[]> execute(
      int slot, List<byte[]> args, boolean write, boolean stale) {
    int shard = topology.settings().shardOf(slot);
    ByteString entry = ByteString.copyFrom(ShardLogEntry.encode(args));
    return attempt(shard, entry, write, stale, System.nanoTime() + RETRY_NANOS);
  }

  /**
   * Submits the command to this node's member of the shard's group; tries again, shortly, while the
   * member refuses it only because its leadership is changing hands (the command was not appended,
   * so trying again cannot apply it twice).
   */
  private CompletableFuture<byte[]> attempt(
      int shard, ByteString entry, boolean write, boolean stale, long deadline) {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(self)
            .setGroupId(topology.group(shard).getGroupId())
            .setCallId(calls.incrementAndGet())
            .setMessage(Message.valueOf(entry))
            .setType(
                write
                    ? RaftClientRequest.writeRequestType()
                    : stale
                        ? RaftClientRequest.staleReadRequestType(0)
                        : RaftClientRequest.readRequestType())
            .build();
    CompletableFuture<RaftClientReply> submitted;
    try {
      submitted = groups.server().submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return submitted.thenCompose(
        reply -> {
          if (handingOver(reply) || (stale && reply.getException() instanceof StaleReadException)) {
            if (System.nanoTime() < deadline) {
              return CompletableFuture.supplyAsync(() -> null, RETRY_DELAY)
                  .thenCompose(ignored -> attempt(shard, entry, write, stale, deadline));
            }
            // Not appended, so not applied (or, for a replica's read, not caught up yet): the
            // client may send it again.
            throw new Redirect(
                new Route.Down("TRYAGAIN The shard of this slot is changing leaders; try again"));
          }
          if (!write && !reply.isSuccess() && reply.getNotLeaderException() == null) {
            // A read that failed changed nothing: the client may simply ask again.
            throw new Redirect(
                new Route.Down("TRYAGAIN The shard could not serve this read now; try again"));
          }
          return CompletableFuture.completedFuture(replyOf(shard, reply));
        });
  }

  /**
   * Whether the member refused the command only because the group's leadership is changing hands:
   * its leader hands over or has not committed its first entry, or the group is electing one.
   */
  private boolean handingOver(RaftClientReply reply) {
    if (reply.isSuccess()) {
      return false;
    }
    if (reply.getException() instanceof LeaderSteppingDownException
        || reply.getException() instanceof LeaderNotReadyException) {
      return true;
    }
    NotLeaderException notLeader = reply.getNotLeaderException();
    return notLeader != null
        && (notLeader.getSuggestedLeader() == null
            || notLeader.getSuggestedLeader().getId().equals(self));
  }

  private byte[] replyOf(int shard, RaftClientReply reply) {
    if (reply.isSuccess()) {
      return reply.getMessage().getContent().toByteArray();
    }
    NotLeaderException notLeader = reply.getNotLeaderException();
    if (notLeader != null) {
      var suggested = notLeader.getSuggestedLeader();
      ClusterSettings.Node leader =
          suggested == null ? null : topology.node(suggested.getId().toString());
      throw new Redirect(
          leader == null
              ? new Route.Down("TRYAGAIN The shard of this slot is electing a leader; try again")
              : new Route.Moved(leader.host(), leader.port()));
    }
    var exception = reply.getException();
    throw new IllegalStateException(
        exception == null ? "the shard refused the command" : exception.getMessage(), exception);
  }

  @Override
  public ClusterReply cluster(List<byte[]> args) {
    return replies.answer(args);
  }

  @Override
  public String myId() {
    return ClusterTopology.redisId(topology.settings().nodeId());
  }

  @Override
  public void close() {
    balancer.close();
    groups.close();
  }
}
