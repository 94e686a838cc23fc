package dev.cellar.server.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a server that is a cluster node serves keyed commands: which node serves a slot, running a
 * command on the slot's shard here, and the {@code CLUSTER} subcommands. The server parses, checks
 * and routes; an implementation (the {@code cellar-cluster} module, found through {@link
 * ClusterRoutingProvider}) owns the shards, their replication and the topology.
 */
public interface ClusterRouting extends AutoCloseable {
  /** Where a command on a slot goes. */
  sealed interface Route permits Route.Here, Route.Moved, Route.Down {
    /** This node serves it. */
    record Here() implements Route {}

    /** Another node does: the client is told {@code MOVED slot host:port}. */
    record Moved(String host, int port) implements Route {}

    /** Nobody can now (no leader elected yet, too few replicas): the error to answer. */
    record Down(String error) implements Route {}
  }

  /**
   * Where a command on {@code slot} goes: to the shard's leader for a write or a linearizable read;
   * to any replica of the shard for a read on a {@code READONLY} connection ({@code stale}).
   */
  Route route(int slot, boolean write, boolean stale);

  /**
   * Runs {@code args} (the command and its arguments, with expiries already absolute) on the shard
   * of {@code slot}, which {@link #route} placed here; completes with the reply in RESP2, or
   * exceptionally: with a {@link Redirect} when the command was not run (the shard's leadership
   * moved, or is still changing hands), with anything else when whether it ran is not known.
   */
  CompletableFuture<byte[]> execute(int slot, List<byte[]> args, boolean write, boolean stale);

  /**
   * Answers {@code CLUSTER} with {@code args} (the subcommand first): a reply tree of {@link
   * ClusterReply} values.
   */
  ClusterReply cluster(List<byte[]> args);

  /** This node's id, as {@code CLUSTER MYID} gives it. */
  String myId();

  /** Stops the node's part in the cluster: its shard replicas and their stores. */
  @Override
  void close();

  /** The command was not run, because of where the shard's leadership is: the client is told. */
  final class Redirect extends RuntimeException {
    private final Route route;

    public Redirect(Route route) {
      super(route.toString(), null, false, false);
      this.route = route;
    }

    public Route route() {
      return route;
    }
  }
}
