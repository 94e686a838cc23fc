package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;

/**
 * {@code CLUSTER}, as a Redis server started without {@code cluster-enabled} answers it: every
 * subcommand fails with "This instance has cluster support disabled", which is how cluster-aware
 * clients learn that they talk to a single server. Like Redis's, it is refused inside scripts.
 */
final class ClusterCommand {
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
  }

  static void run(Session s, Request r, ReplyWriter out) {
    String refused = Subcommands.refusal("cluster", r); // an unknown one, or a wrong arity
    if (refused != null) {
      throw new CommandError(refused);
    }
    throw new CommandError("ERR This instance has cluster support disabled");
  }
}
