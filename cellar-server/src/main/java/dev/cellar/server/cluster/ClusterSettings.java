package dev.cellar.server.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A node's cluster configuration: who it is, every node of the cluster with its addresses, how many
 * replicas each shard has, how many shards the 16384 slots are split into, where the shard replicas
 * live, and the node timeout (Redis's {@code cluster-node-timeout}, from which the Raft election
 * timeouts follow). Membership is static: every node is given the same list.
 */
public record ClusterSettings(
    String nodeId,
    List<Node> nodes,
    int replicas,
    int shards,
    Path directory,
    long nodeTimeoutMillis) {

  /**
   * A node: its id, and where clients ({@code port}) and its Raft peers ({@code raftPort}) reach
   * it.
   */
  public record Node(String id, String host, int port, int raftPort) {
    public Node {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(host, "host");
    }

    /**
     * Parses {@code id@host:port} or {@code id@host:port:raftPort} (the Raft port defaults to the
     * client port plus 10000, as Redis's cluster bus port does).
     */
    public static Node parse(String text) {
      int at = text.indexOf('@');
      String[] parts = at < 1 ? new String[0] : text.substring(at + 1).split(":");
      if (at < 1 || parts.length < 2 || parts.length > 3 || parts[0].isEmpty()) {
        throw new IllegalArgumentException(
            "a cluster node is id@host:port or id@host:port:raftport, not '" + text + "'");
      }
      try {
        int port = Integer.parseInt(parts[1]);
        int raftPort = parts.length == 3 ? Integer.parseInt(parts[2]) : port + 10000;
        if (port < 1 || port > 65535 || raftPort < 1 || raftPort > 65535) {
          throw new NumberFormatException();
        }
        return new Node(text.substring(0, at), parts[0], port, raftPort);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "a cluster node's ports must be 1 to 65535: '" + text + "'");
      }
    }

    @Override
    public String toString() {
      return id + "@" + host + ":" + port + ":" + raftPort;
    }
  }

  public ClusterSettings {
    Objects.requireNonNull(nodeId, "nodeId");
    nodes = List.copyOf(nodes);
    Objects.requireNonNull(directory, "directory");
    if (nodes.stream().noneMatch(n -> n.id().equals(nodeId))) {
      throw new IllegalArgumentException(
          "cluster-node-id " + nodeId + " is not one of cluster-nodes " + nodes);
    }
    if (nodes.stream().map(Node::id).distinct().count() != nodes.size()) {
      throw new IllegalArgumentException("cluster-nodes lists a node id twice: " + nodes);
    }
    if (replicas < 1 || replicas > nodes.size()) {
      throw new IllegalArgumentException(
          "cluster-replicas must be 1 to the number of nodes (" + nodes.size() + "): " + replicas);
    }
    if (shards < 1 || shards > KeySlot.SLOTS) {
      throw new IllegalArgumentException("cluster-shards must be 1 to 16384: " + shards);
    }
  }

  /** This node's entry. */
  public Node self() {
    return nodes.stream().filter(n -> n.id().equals(nodeId)).findFirst().orElseThrow();
  }

  /** The first slot of {@code shard}: the slots are split into contiguous, near-equal ranges. */
  public int firstSlot(int shard) {
    return (int) ((long) shard * KeySlot.SLOTS / shards);
  }

  /** The shard that holds {@code slot}. */
  public int shardOf(int slot) {
    // The inverse of firstSlot: the largest shard whose first slot is at most slot.
    int shard = (int) (((long) slot * shards + shards - 1) / KeySlot.SLOTS);
    while (shard > 0 && firstSlot(shard) > slot) {
      shard--;
    }
    while (shard + 1 < shards && firstSlot(shard + 1) <= slot) {
      shard++;
    }
    return shard;
  }

  /** The nodes listed in {@code text}, separated by spaces or commas. */
  public static List<Node> parseNodes(String text) {
    List<Node> nodes = new ArrayList<>();
    for (String part : text.trim().split("[\\s,]+")) {
      if (!part.isEmpty()) {
        nodes.add(Node.parse(part));
      }
    }
    return nodes;
  }
}
