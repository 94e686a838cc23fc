package dev.cellar.server.command;

import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.cluster.ClusterRouting.Route;
import dev.cellar.server.cluster.KeySlot;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;

/**
 * Routes a command on a cluster node, as a Redis Cluster node does: a keyed command goes to its
 * slot's shard, here if this node serves it ({@code MOVED} to the node that does otherwise; {@code
 * CROSSSLOT} if its keys hash to different slots); a keyless command about the connection or the
 * node runs here as usual.
 *
 * <p>A command run on a shard is answered once the shard's group has committed and applied it (or,
 * for a read, confirmed that this replica's state is current): the connection is held, as a
 * blocking command holds it ({@link Session#block}), and resumed with the reply, so replies keep
 * their order. A pipeline's commands therefore take a replication round each, one after another;
 * see docs/cluster.md, "Throughput".
 *
 * <p>The shard commands are the string commands of {@link #SHARD_COMMANDS}; others that take keys
 * are refused with an error naming the command, rather than run against this node's own store,
 * which a cluster node does not serve.
 */
final class ClusterDispatch {
  /** Keyed commands a shard runs, and whether each writes. */
  private static final Map<String, Boolean> SHARD_COMMANDS =
      Map.of(
          "get", false,
          "exists", false,
          "set", true,
          "del", true,
          "unlink", true,
          "incr", true,
          "decr", true,
          "incrby", true,
          "decrby", true);

  /** Keyless commands a node answers itself: about the connection, the node, or the cluster. */
  private static final Set<String> NODE_COMMANDS =
      Set.of(
          "ping",
          "echo",
          "hello",
          "auth",
          "client",
          "command",
          "cluster",
          "info",
          "config",
          "quit",
          "reset",
          "readonly",
          "readwrite",
          "asking",
          "time",
          "select",
          "lastsave",
          "latency",
          "slowlog",
          "shutdown",
          "role",
          "lolwut");

  private ClusterDispatch() {}

  /** Whether the command was answered or taken over here; false: run it as usual. */
  static boolean handle(
      ClusterRouting cluster, Session session, CommandSpec spec, Request request, ReplyWriter out) {
    String name = spec.name();
    Boolean write = SHARD_COMMANDS.get(name);
    if (write == null) {
      if (name.equals("select") && !request.is(1, "0")) {
        out.error("ERR SELECT is not allowed in cluster mode"); // as Redis: one database
        return true;
      }
      if (NODE_COMMANDS.contains(name)) {
        return false;
      }
      out.error(
          "ERR '"
              + name
              + "' is not served by a Cellar cluster yet; see docs/cluster.md for the commands"
              + " a cluster serves");
      return true;
    }
    // The keys where the command table says they are (every shard command has a key).
    int first = spec.firstKey();
    int slot = KeySlot.of(request.buffer(), request.offset(first), request.length(first));
    for (int i = first + spec.step(); i <= spec.lastKeyIndex(request.argc()); i += spec.step()) {
      if (KeySlot.of(request.buffer(), request.offset(i), request.length(i)) != slot) {
        out.error("CROSSSLOT Keys in request don't hash to the same slot");
        return true;
      }
    }
    List<byte[]> args;
    try {
      args = name.equals("set") ? absoluteSet(request) : arguments(request);
    } catch (CommandError refused) {
      out.error(refused.getMessage());
      return true;
    }
    boolean stale = !write && session.clusterReadOnly();
    Route route = cluster.route(slot, write, stale);
    if (!(route instanceof Route.Here)) {
      answerElsewhere(out, slot, route);
      return true;
    }
    session.block();
    cluster
        .execute(slot, args, write, stale)
        .whenComplete(
            (reply, failure) ->
                session
                    .channel()
                    .resume(
                        w -> {
                          session.unblock();
                          if (failure == null) {
                            replay(w, reply);
                          } else {
                            failed(w, slot, failure);
                          }
                        }));
    return true;
  }

  private static List<byte[]> arguments(Request request) {
    List<byte[]> args = new ArrayList<>(request.argc());
    for (int i = 0; i < request.argc(); i++) {
      args.add(request.bytes(i));
    }
    return args;
  }

  /**
   * {@code SET} with its expiry made absolute ({@code EX}, {@code PX} and {@code EXAT} become
   * {@code PXAT}), so that every replica applies the same expiry; {@code GET} and {@code KEEPTTL}
   * are refused for now.
   */
  private static List<byte[]> absoluteSet(Request request) {
    List<byte[]> args = new ArrayList<>(request.argc());
    args.add(request.bytes(0));
    args.add(request.bytes(1));
    args.add(request.bytes(2));
    long expireAt = 0;
    for (int i = 3; i < request.argc(); i++) {
      String option = request.string(i).toLowerCase(Locale.ROOT);
      switch (option) {
        case "nx", "xx" -> args.add(request.bytes(i));
        case "ex", "px", "exat", "pxat" -> {
          if (expireAt != 0 || i + 1 >= request.argc()) {
            throw new CommandError("ERR syntax error");
          }
          if (!request.isLong(i + 1)) {
            throw new CommandError("ERR value is not an integer or out of range");
          }
          long n = request.longValue(++i);
          if (n <= 0) {
            throw new CommandError("ERR invalid expire time in 'set' command");
          }
          try {
            expireAt =
                switch (option) {
                  case "ex" ->
                      Math.addExact(System.currentTimeMillis(), Math.multiplyExact(n, 1000));
                  case "px" -> Math.addExact(System.currentTimeMillis(), n);
                  case "exat" -> Math.multiplyExact(n, 1000);
                  default -> n;
                };
          } catch (ArithmeticException overflow) {
            throw new CommandError("ERR invalid expire time in 'set' command");
          }
        }
        case "get", "keepttl" ->
            throw new CommandError(
                "ERR SET with "
                    + option.toUpperCase(Locale.ROOT)
                    + " is not served by a Cellar"
                    + " cluster yet");
        default -> throw new CommandError("ERR syntax error");
      }
    }
    if (expireAt != 0) {
      args.add("PXAT".getBytes(StandardCharsets.US_ASCII));
      args.add(Long.toString(expireAt).getBytes(StandardCharsets.US_ASCII));
    }
    return args;
  }

  private static void answerElsewhere(ReplyWriter out, int slot, Route route) {
    switch (route) {
      case Route.Moved moved ->
          out.error("MOVED " + slot + " " + moved.host() + ":" + moved.port());
      case Route.Down down -> out.error(down.error());
      case Route.Here here -> throw new IllegalStateException("answered here");
    }
  }

  private static void failed(ReplyWriter out, int slot, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof ClusterRouting.Redirect redirect) {
      answerElsewhere(out, slot, redirect.route()); // not run: MOVED, or try again
    } else {
      // Anything else (the node stopping, the store failing) may have come after the command was
      // appended: whether it took effect is not known here, which the error says, so that a client
      // does not take it for a command that was not run.
      out.error(
          "UNKNOWN the command's outcome is not known: "
              + String.valueOf(cause.getMessage()).replace('\r', ' ').replace('\n', ' '));
    }
  }

  /** Writes a shard's RESP2 reply in the connection's protocol. */
  private static void replay(ReplyWriter out, byte[] reply) {
    if (reply.length == 5 && reply[0] == '$' && reply[1] == '-' && reply[2] == '1') {
      out.nullBulk(); // "_" in RESP3
    } else if (reply.length > 0 && reply[0] == '-') {
      out.error(new String(reply, 1, reply.length - 3, StandardCharsets.UTF_8));
    } else {
      out.replay(reply);
    }
  }
}
