package dev.cellar.cluster;

import dev.cellar.server.cluster.ClusterSettings;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;

/**
 * Keeps each shard's leadership where the {@link LeadershipPlan} for the agreed live nodes ({@link
 * LiveNodes}) puts it. Every second, for each group this node leads, it finds the replicas that
 * answered the leader's last heartbeats and hold every entry it has applied, and if the plan names
 * another node among those, hands the leadership to it (Ratis's leadership transfer, which waits
 * for the new leader to have every entry). A planned node that does not answer, or lags, is not
 * handed anything: the leadership stays where it is until the plan changes or the node catches up.
 *
 * <h2>Why not Ratis's priorities</h2>
 *
 * Ratis can prefer a leader by peer priority, and a leader yields to an up-to-date peer of higher
 * priority. But it takes a peer that has stopped answering for up to date as long as the leader has
 * appended nothing since, and while it yields it refuses writes: a preferred replica that dies
 * would make its group's leader try to yield to it, and refuse writes, for as long as it stays
 * dead. So every peer has the same priority; elections pick whichever replica times out first, and
 * this class moves the leadership to the planned node.
 *
 * <p>What that gives when a node fails: each shard it led elects some survivor at once; once the
 * metadata leader has agreed the smaller live set, every shard whose planned leader changed moves
 * to it, and the plan gives each survivor an equal share (see {@link LeadershipPlan}): the brief's
 * uniform failover.
 */
final class LeadershipBalancer implements AutoCloseable {
  /** How often the leaderships are checked. */
  static final long PERIOD_MILLIS = 1000;

  private final ClusterTopology topology;
  private final ShardGroups groups;
  private final long aliveWithinMillis;
  private final LiveNodes live;

  /** The last plan, and the live set it was made for: recomputed only when that set changes. */
  private Set<String> plannedFor;

  private volatile String[] plan;
  private final ClientId clientId = ClientId.randomId();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "cluster-leadership");
            t.setDaemon(true);
            return t;
          });
  private long calls;

  /**
   * How long a leader leads before it hands over: a group that has just elected (a node starting,
   * or a failover) first settles, and its followers get a chance to join and catch up.
   */
  static final long SETTLE_MILLIS = 3000;

  /**
   * How long after a transfer a shard's leadership is left alone: while the leader hands over it
   * refuses writes (their senders wait, see {@link RaftClusterRouting}), so a transfer that did not
   * take is not tried again at once.
   */
  static final long BACKOFF_MILLIS = 10_000;

  /** When each shard's last transfer started, in {@link System#nanoTime()} units. */
  private final long[] lastTransfer;

  /** Groups with a transfer in flight, by shard: one at a time each. */
  private final Set<Integer> transferring = java.util.concurrent.ConcurrentHashMap.newKeySet();

  LeadershipBalancer(ClusterTopology topology, ShardGroups groups, long aliveWithinMillis) {
    this.topology = topology;
    this.groups = groups;
    this.aliveWithinMillis = aliveWithinMillis;
    this.live = new LiveNodes(topology, groups, aliveWithinMillis);
    this.lastTransfer = new long[topology.shards()];
    java.util.Arrays.fill(
        lastTransfer, System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(BACKOFF_MILLIS));
  }

  void start() {
    timer.scheduleWithFixedDelay(this::check, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void check() {
    try {
      live.check();
      Set<String> agreed = live.agreed();
      if (!agreed.equals(plannedFor)) {
        plan = LeadershipPlan.plan(topology.replicaIds(), agreed);
        plannedFor = agreed;
      }
      long now = System.nanoTime();
      for (int shard = 0; shard < topology.shards(); shard++) {
        RaftServer.Division division = groups.division(shard);
        if (division != null
            && division.getInfo().isLeader()
            && division.getInfo().isLeaderReady()
            && division.getInfo().getRoleInfoProto().getRoleElapsedTimeMs() >= SETTLE_MILLIS
            && now - lastTransfer[shard] >= TimeUnit.MILLISECONDS.toNanos(BACKOFF_MILLIS)
            && !transferring.contains(shard)) {
          balance(shard, division, plan[shard]);
        }
      }
    } catch (RuntimeException e) {
      // the server is closing, or a group is being removed: the next round sees what is left
    }
  }

  /** Whether {@code id} is in the cluster's agreed live set (every node before one is agreed). */
  boolean isLive(String id) {
    return live.agreed().contains(id);
  }

  /**
   * The node the plan gives {@code shard}'s leadership, or its preferred replica before the first
   * plan (or if the plan has no live replica for it): where a node that holds no replica of the
   * shard sends its clients.
   */
  ClusterSettings.Node plannedLeader(int shard) {
    String[] current = plan;
    String id = current == null ? null : current[shard];
    return id != null ? topology.node(id) : topology.replicas(shard).getFirst();
  }

  private void balance(int shard, RaftServer.Division division, String planned) {
    String self = topology.settings().nodeId();
    if (planned == null
        || planned.equals(self)
        || !ready(
                division.getInfo().getRoleInfoProto(),
                division.getInfo().getFollowerMatchIndices(),
                division.getInfo().getLastAppliedIndex())
            .contains(planned)) {
      return;
    }
    ClusterSettings.Node preferred = topology.node(planned);
    transferring.add(shard);
    lastTransfer[shard] = System.nanoTime();
    long timeoutMs = Math.max(500, 2 * aliveWithinMillis);
    TransferLeadershipRequest request =
        new TransferLeadershipRequest(
            clientId,
            ClusterTopology.peerId(self),
            topology.group(shard).getGroupId(),
            ++calls,
            ClusterTopology.peerId(preferred.id()),
            timeoutMs);
    try {
      groups
          .server()
          .transferLeadershipAsync(request)
          .whenComplete((reply, failure) -> transferring.remove(shard));
    } catch (java.io.IOException | RuntimeException e) {
      transferring.remove(shard);
    }
  }

  /**
   * The replicas that could lead now, as their leader sees them: itself, and each follower whose
   * last answer came within {@link #aliveWithinMillis} and that has every entry the leader has
   * applied. (A transfer to a follower still catching up would wait for it, and the leader refuses
   * writes while it waits.) {@code matchIndices} are the followers' in the order of {@code role}'s
   * follower list, as Ratis gives both.
   */
  Set<String> ready(RoleInfoProto role, long[] matchIndices, long appliedIndex) {
    Set<String> ready = new HashSet<>();
    ready.add(topology.settings().nodeId());
    if (role.hasLeaderInfo()
        && role.getLeaderInfo().getFollowerInfoCount() == matchIndices.length) {
      List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
      for (int i = 0; i < followers.size(); i++) {
        ServerRpcProto follower = followers.get(i);
        if (follower.getLastRpcElapsedTimeMs() <= aliveWithinMillis
            && appliedIndex >= 0
            && matchIndices[i] >= appliedIndex) {
          ready.add(RaftPeerId.valueOf(follower.getId().getId()).toString());
        }
      }
    }
    return ready;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
