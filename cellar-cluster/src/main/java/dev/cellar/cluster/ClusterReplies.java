package dev.cellar.cluster;

import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.server.cluster.ClusterReply;
import dev.cellar.server.cluster.ClusterReply.Array;
import dev.cellar.server.cluster.ClusterReply.Int;
import dev.cellar.server.cluster.ClusterSettings;
import dev.cellar.server.cluster.KeySlot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The answers to {@code CLUSTER} subcommands, in the shapes Redis 7.2 gives them, from the topology
 * and what this node knows of each shard's leader.
 *
 * <p>In Redis a node is either a primary of some slots or a replica of one primary; here every node
 * leads some shards and follows others. {@code SLOTS} and {@code SHARDS}, which cluster clients
 * read, describe each shard as Redis would (its leader as the primary, its other replicas as
 * replicas); {@code NODES} shows every node as a primary of the slots it leads now.
 */
final class ClusterReplies {
  private final ClusterTopology topology;
  private final IntFunction<ClusterSettings.Node> leaders;
  private final ShardGroups groups;
  private final java.util.function.Predicate<String> live;

  /**
   * @param live whether a node is in the cluster's agreed live set: a node outside it is shown
   *     failed ({@code fail} in NODES, {@code health fail} in SHARDS), as Redis shows a node its
   *     peers agree is down
   */
  ClusterReplies(
      ClusterTopology topology,
      IntFunction<ClusterSettings.Node> leaders,
      ShardGroups groups,
      java.util.function.Predicate<String> live) {
    this.topology = topology;
    this.leaders = leaders;
    this.groups = groups;
    this.live = live;
  }

  ClusterReply answer(List<byte[]> args) {
    String sub = new String(args.getFirst(), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    return switch (sub) {
      case "keyslot" -> new Int(KeySlot.of(args.get(1)));
      case "myid" -> ClusterReply.bulk(ClusterTopology.redisId(topology.settings().nodeId()));
      case "slots" -> slots();
      case "shards" -> shards();
      case "nodes" -> new ClusterReply.Text(nodes());
      case "info" -> new ClusterReply.Text(info());
      case "countkeysinslot" -> countKeysInSlot(args.get(1));
      case "getkeysinslot" -> keysInSlot(args.get(1), args.get(2));
      default ->
          new ClusterReply.Error(
              "ERR CLUSTER "
                  + sub.toUpperCase(Locale.ROOT)
                  + " is not supported by a Cellar cluster: its slots are placed by the"
                  + " configuration (docs/cluster.md)");
    };
  }

  /** The leader as far as this node knows, else the preferred leader. */
  private ClusterSettings.Node leader(int shard) {
    ClusterSettings.Node leader = leaders.apply(shard);
    return leader != null ? leader : topology.replicas(shard).getFirst();
  }

  private ClusterReply slots() {
    List<ClusterReply> ranges = new ArrayList<>();
    for (int shard = 0; shard < topology.shards(); shard++) {
      List<ClusterReply> range = new ArrayList<>();
      range.add(new Int(topology.settings().firstSlot(shard)));
      range.add(new Int(lastSlot(shard)));
      ClusterSettings.Node leader = leader(shard);
      range.add(endpoint(leader));
      for (ClusterSettings.Node replica : topology.replicas(shard)) {
        if (!replica.equals(leader)) {
          range.add(endpoint(replica));
        }
      }
      ranges.add(new Array(range));
    }
    return new Array(ranges);
  }

  private static ClusterReply endpoint(ClusterSettings.Node node) {
    return new Array(
        List.of(
            ClusterReply.bulk(node.host()),
            new Int(node.port()),
            ClusterReply.bulk(ClusterTopology.redisId(node.id())),
            new ClusterReply.Map(List.of())));
  }

  private ClusterReply shards() {
    List<ClusterReply> shards = new ArrayList<>();
    for (int shard = 0; shard < topology.shards(); shard++) {
      ClusterSettings.Node leader = leader(shard);
      List<ClusterReply> nodes = new ArrayList<>();
      for (ClusterSettings.Node node : topology.replicas(shard)) {
        nodes.add(
            new ClusterReply.Map(
                List.of(
                    ClusterReply.bulk("id"),
                    ClusterReply.bulk(ClusterTopology.redisId(node.id())),
                    ClusterReply.bulk("port"),
                    new Int(node.port()),
                    ClusterReply.bulk("ip"),
                    ClusterReply.bulk(node.host()),
                    ClusterReply.bulk("endpoint"),
                    ClusterReply.bulk(node.host()),
                    ClusterReply.bulk("role"),
                    ClusterReply.bulk(node.equals(leader) ? "master" : "replica"),
                    ClusterReply.bulk("replication-offset"),
                    new Int(appliedIndex(shard, node)),
                    ClusterReply.bulk("health"),
                    ClusterReply.bulk(live.test(node.id()) ? "online" : "fail"))));
      }
      shards.add(
          new ClusterReply.Map(
              List.of(
                  ClusterReply.bulk("slots"),
                  new Array(
                      List.of(
                          new Int(topology.settings().firstSlot(shard)), new Int(lastSlot(shard)))),
                  ClusterReply.bulk("nodes"),
                  new Array(nodes))));
    }
    return new Array(shards);
  }

  /** This node's applied index of the shard for itself; 0 for other nodes (not known here). */
  private long appliedIndex(int shard, ClusterSettings.Node node) {
    if (!node.id().equals(topology.settings().nodeId())) {
      return 0;
    }
    var division = groups.division(shard);
    return division == null ? 0 : division.getInfo().getLastAppliedIndex();
  }

  private String nodes() {
    StringBuilder text = new StringBuilder();
    String self = topology.settings().nodeId();
    for (ClusterSettings.Node node : topology.settings().nodes()) {
      text.append(ClusterTopology.redisId(node.id()))
          .append(' ')
          .append(node.host())
          .append(':')
          .append(node.port())
          .append('@')
          .append(node.raftPort())
          .append(' ')
          .append(node.id().equals(self) ? "myself,master" : "master")
          .append(live.test(node.id()) ? "" : ",fail")
          .append(live.test(node.id()) ? " - 0 0 0 connected" : " - 0 0 0 disconnected");
      for (int shard = 0; shard < topology.shards(); shard++) {
        if (leader(shard).equals(node)) {
          text.append(' ').append(topology.settings().firstSlot(shard));
          if (lastSlot(shard) != topology.settings().firstSlot(shard)) {
            text.append('-').append(lastSlot(shard));
          }
        }
      }
      text.append('\n');
    }
    return text.toString();
  }

  private String info() {
    int slotsOk = 0;
    for (int shard = 0; shard < topology.shards(); shard++) {
      if (leaders.apply(shard) != null) {
        slotsOk += lastSlot(shard) - topology.settings().firstSlot(shard) + 1;
      }
    }
    return "cluster_state:"
        + (slotsOk == KeySlot.SLOTS ? "ok" : "fail")
        + "\r\ncluster_slots_assigned:"
        + KeySlot.SLOTS
        + "\r\ncluster_slots_ok:"
        + slotsOk
        + "\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:"
        + (KeySlot.SLOTS - slotsOk)
        + "\r\ncluster_known_nodes:"
        + topology.settings().nodes().size()
        + "\r\ncluster_size:"
        + topology.settings().nodes().size()
        + "\r\ncluster_current_epoch:0\r\ncluster_my_epoch:0"
        + "\r\ncluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0"
        + "\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n";
  }

  private int lastSlot(int shard) {
    return shard + 1 < topology.shards()
        ? topology.settings().firstSlot(shard + 1) - 1
        : KeySlot.SLOTS - 1;
  }

  private ClusterReply countKeysInSlot(byte[] slotArg) {
    int slot = parseSlot(slotArg);
    if (slot < 0) {
      return new ClusterReply.Error("ERR Invalid slot");
    }
    return new Int(keysInSlot(slot, Long.MAX_VALUE).size());
  }

  private ClusterReply keysInSlot(byte[] slotArg, byte[] countArg) {
    int slot = parseSlot(slotArg);
    long count;
    try {
      count = Long.parseLong(new String(countArg, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      count = -1;
    }
    if (slot < 0 || count < 0) {
      return new ClusterReply.Error(slot < 0 ? "ERR Invalid slot" : "ERR Invalid number of keys");
    }
    List<ClusterReply> keys = new ArrayList<>();
    for (byte[] key : keysInSlot(slot, count)) {
      keys.add(new ClusterReply.Bulk(key));
    }
    return new Array(keys);
  }

  /**
   * Up to {@code limit} keys of {@code slot} in this node's replica of its shard (none if it holds
   * none): a walk over the replica's keys, since the store keeps no index by slot.
   */
  private List<byte[]> keysInSlot(int slot, long limit) {
    int shard = topology.settings().shardOf(slot);
    List<byte[]> keys = new ArrayList<>();
    if (groups.division(shard) == null) {
      return keys;
    }
    try (Cursor cursor = groups.store(shard).scan()) {
      while (cursor.hasNext() && keys.size() < limit) {
        Entry entry = cursor.next();
        byte[] key = entry.key();
        if ((key.length == 0 || key[0] != ShardCommands.RESERVED_PREFIX)
            && KeySlot.of(key) == slot) {
          keys.add(key);
        }
      }
    }
    return keys;
  }

  private static int parseSlot(byte[] arg) {
    try {
      int slot = Integer.parseInt(new String(arg, StandardCharsets.US_ASCII));
      return slot >= 0 && slot < KeySlot.SLOTS ? slot : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
