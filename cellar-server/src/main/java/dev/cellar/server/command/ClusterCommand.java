package dev.cellar.server.command;

import dev.cellar.server.cluster.ClusterReply;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code CLUSTER}, {@code READONLY}, {@code READWRITE} and {@code ASKING}. On a cluster node
 * ({@code cluster-enabled yes}) {@code CLUSTER}'s subcommands are the node's {@link
 * ClusterRouting}'s to answer, and {@code READONLY} lets the connection's reads be served by a
 * shard's replica here. On a server started without {@code cluster-enabled}, every one of them
 * fails with "This instance has cluster support disabled", as in Redis, which is how cluster-aware
 * clients learn that they talk to a single server. Like Redis's, they are refused inside scripts.
 */
final class ClusterCommand {
  private static final String DISABLED = "ERR This instance has cluster support disabled";

  private ClusterCommand() {}

  static void register(CommandTable t) {
    t.add(
        "cluster",
        -2,
        "noscript",
        0,
        0,
        0,
        "cluster",
        "A container for Redis Cluster commands.",
        ClusterCommand::run);
    t.add(
        "readonly",
        1,
        "noscript fast loading stale",
        0,
        0,
        0,
        "cluster",
        "Enables read-only queries for a connection to a Redis Cluster replica node.",
        (s, r, out) -> readOnly(s, out, true));
    t.add(
        "readwrite",
        1,
        "noscript fast loading stale",
        0,
        0,
        0,
        "cluster",
        "Enables read-write queries for a connection to a Reids Cluster replica node.",
        (s, r, out) -> readOnly(s, out, false));
    t.add(
        "asking",
        1,
        "fast",
        0,
        0,
        0,
        "cluster",
        "Signals that a cluster client is following an -ASK redirect.",
        (s, r, out) -> {
          requireCluster(s);
          out.ok();
        });
  }

  static void run(Session s, Request r, ReplyWriter out) {
    String refused = Subcommands.refusal("cluster", r); // an unknown one, or a wrong arity
    if (refused != null) {
      throw new CommandError(refused);
    }
    ClusterRouting cluster = requireCluster(s);
    List<byte[]> args = new ArrayList<>(r.argc() - 1);
    for (int i = 1; i < r.argc(); i++) {
      args.add(r.bytes(i));
    }
    write(out, cluster.cluster(args));
  }

  private static void readOnly(Session s, ReplyWriter out, boolean on) {
    requireCluster(s);
    s.clusterReadOnly(on);
    out.ok();
  }

  private static ClusterRouting requireCluster(Session s) {
    ClusterRouting cluster = s.server().cluster();
    if (cluster == null) {
      throw new CommandError(DISABLED);
    }
    return cluster;
  }

  /** Writes a reply tree in the connection's protocol. */
  static void write(ReplyWriter out, ClusterReply reply) {
    switch (reply) {
      case ClusterReply.Simple simple -> out.simple(simple.text());
      case ClusterReply.Bulk bulk -> out.bulk(bulk.bytes());
      case ClusterReply.Text text -> {
        if (out.protocol() == 3) {
          out.verbatim(text.text());
        } else {
          out.bulk(text.text());
        }
      }
      case ClusterReply.Int n -> out.integer(n.value());
      case ClusterReply.Null nothing -> out.nullBulk();
      case ClusterReply.Error error -> out.error(error.message());
      case ClusterReply.Array array -> {
        out.array(array.items().size());
        for (ClusterReply item : array.items()) {
          write(out, item);
        }
      }
      case ClusterReply.Map map -> {
        if (out.protocol() == 3) {
          out.map(map.keysAndValues().size() / 2);
        } else {
          out.array(map.keysAndValues().size());
        }
        for (ClusterReply item : map.keysAndValues()) {
          write(out, item);
        }
      }
    }
  }
}
