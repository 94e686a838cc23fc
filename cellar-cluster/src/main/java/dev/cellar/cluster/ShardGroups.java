package dev.cellar.cluster;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;

/**
 * The shard replicas one node holds: one Ratis server (one Raft port, gRPC) that is a member of
 * each of their groups, and one Cellar store per replica, which that group's {@link
 * ShardStateMachine} applies to, and of the metadata group if this node is one of its members.
 * Under the node's directory: {@code raft/} (Ratis's logs and metadata, a directory per group) and
 * {@code shard-N/} (the store of shard N).
 *
 * <p>Election timeouts follow the node timeout (Redis's {@code cluster-node-timeout}): from a tenth
 * of it to a fifth, at most 300 to 600 ms, so that a group whose leader dies elects another well
 * within the cluster's 3 s failover target. Reads are linearizable (Ratis's read index). Snapshot
 * installation is not built yet: Ratis purges a group's log only up to what every member has
 * committed (docs/cluster.md, "What is not built yet").
 */
final class ShardGroups implements AutoCloseable {
  private final ClusterTopology topology;
  private final Path directory;
  private final CellarOptions storeOptions;
  private final Map<Integer, Cellar> stores = new ConcurrentHashMap<>();
  private final RaftServer server;
  private final MetadataStateMachine metadata = new MetadataStateMachine();

  private ShardGroups(ClusterTopology topology, Path directory, CellarOptions storeOptions)
      throws IOException {
    this.topology = topology;
    this.directory = directory;
    this.storeOptions = storeOptions;
    String self = topology.settings().nodeId();
    Files.createDirectories(directory.resolve("raft"));
    this.server =
        RaftServer.newBuilder()
            .setServerId(ClusterTopology.peerId(self))
            .setStateMachineRegistry(this::stateMachine)
            .setProperties(properties())
            // RECOVER: the groups found in raft/ rejoin at once; a new directory is formatted.
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
  }

  /** Starts the node's Ratis server and joins every group of a shard this node holds. */
  static ShardGroups start(ClusterTopology topology, CellarOptions storeOptions)
      throws IOException {
    RatisRuntime.prepare();
    ShardGroups groups = new ShardGroups(topology, topology.settings().directory(), storeOptions);
    try {
      groups.server.start();
      groups.joinHeldGroups();
      return groups;
    } catch (IOException | RuntimeException e) {
      groups.close();
      throw e;
    }
  }

  private void joinHeldGroups() throws IOException {
    Set<RaftGroupId> joined = new HashSet<>();
    server.getGroupIds().forEach(joined::add);
    String self = topology.settings().nodeId();
    ClientId client = ClientId.randomId();
    long call = 0;
    List<org.apache.ratis.protocol.RaftGroup> held = new java.util.ArrayList<>();
    if (topology.holdsMetadata(self)) {
      held.add(topology.metadataGroup());
    }
    for (int shard = 0; shard < topology.shards(); shard++) {
      if (topology.holds(self, shard)) {
        held.add(topology.group(shard));
      }
    }
    for (org.apache.ratis.protocol.RaftGroup group : held) {
      if (joined.contains(group.getGroupId())) {
        continue;
      }
      RaftClientReply reply =
          server.groupManagement(
              GroupManagementRequest.newAdd(client, ClusterTopology.peerId(self), call++, group));
      if (!reply.isSuccess()) {
        throw new IOException("could not join group " + group.getGroupId() + ": " + reply);
      }
    }
  }

  private org.apache.ratis.statemachine.StateMachine stateMachine(RaftGroupId id) {
    if (id.equals(ClusterTopology.metadataGroupId())) {
      return metadata;
    }
    int shard = topology.shardOf(id);
    if (shard < 0) {
      throw new IllegalStateException("raft/ holds group " + id + ", which is no shard's");
    }
    return new ShardStateMachine(store(shard));
  }

  /** The store of this node's replica of {@code shard}, opened on first use. */
  Cellar store(int shard) {
    return stores.computeIfAbsent(
        shard, s -> Cellar.open(directory.resolve("shard-" + s), storeOptions));
  }

  RaftServer server() {
    return server;
  }

  MetadataStateMachine metadata() {
    return metadata;
  }

  /** This node's member of the metadata group, or null if it is not one. */
  RaftServer.Division metadataDivision() {
    if (!topology.holdsMetadata(topology.settings().nodeId())) {
      return null;
    }
    try {
      return server.getDivision(ClusterTopology.metadataGroupId());
    } catch (IOException notJoined) {
      return null;
    }
  }

  /** This node's member of {@code shard}'s group, or null if it holds no replica of it. */
  RaftServer.Division division(int shard) {
    if (!topology.holds(topology.settings().nodeId(), shard)) {
      return null;
    }
    try {
      return server.getDivision(topology.group(shard).getGroupId());
    } catch (IOException notJoined) {
      return null;
    }
  }

  /** The shortest election timeout: from a tenth of the node timeout, 50 to 300 ms. */
  long electionTimeoutMillis() {
    return Math.min(300, Math.max(50, topology.settings().nodeTimeoutMillis() / 10));
  }

  private RaftProperties properties() {
    RaftProperties p = new RaftProperties();
    // gRPC rather than Ratis's plain Netty transport: that one leaves Nagle's algorithm on, and a
    // write waited for delayed acknowledgements, about 40 ms each (measured: 39 ms a SET).
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    var self = topology.settings().self();
    GrpcConfigKeys.Server.setHost(p, self.host());
    GrpcConfigKeys.Server.setPort(p, self.raftPort());
    RaftServerConfigKeys.setStorageDir(p, List.of(directory.resolve("raft").toFile()));
    // Linearizable reads on a leader's lease: within the lease (90% of the shortest election
    // timeout since a majority last answered), no follower can have been elected, so the leader
    // answers from its state without a round of heartbeats; past it, a read index round.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
    long min = electionTimeoutMillis();
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(min, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * min, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    return p;
  }

  /** Leaves every group (stopping the Ratis server), then closes the stores. */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (Cellar store : stores.values()) {
        store.close();
      }
      stores.clear();
    }
  }
}
