package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.util.Locale;
import java.util.Map;

/**
 * The subcommands of Cellar's container commands ({@code CLIENT}, {@code CONFIG}, {@code XGROUP},
 * ...) with their arities, as Redis 7.2's {@code COMMAND} reports them: the arity counts the
 * container and the subcommand, negative meaning "at least".
 *
 * <p>Why a table of its own: Redis checks a subcommand's name and arity before it runs anything, so
 * that inside {@code MULTI} a wrong one is refused when it is queued (and the {@code EXEC} aborts)
 * rather than when it runs. Each handler still checks its own arguments as it runs; {@link
 * ServerCommands#requireArity} asserts that what a handler checks is what this table says.
 */
final class Subcommands {
  private Subcommands() {}

  private static final Map<String, Map<String, Integer>> ARITY =
      Map.ofEntries(
          Map.entry(
              "client",
              Map.ofEntries(
                  Map.entry("caching", 3),
                  Map.entry("getname", 2),
                  Map.entry("getredir", 2),
                  Map.entry("help", 2),
                  Map.entry("id", 2),
                  Map.entry("info", 2),
                  Map.entry("kill", -3),
                  Map.entry("list", -2),
                  Map.entry("no-evict", 3),
                  Map.entry("no-touch", 3),
                  Map.entry("pause", -3),
                  Map.entry("reply", 3),
                  Map.entry("setinfo", 4),
                  Map.entry("setname", 3),
                  Map.entry("tracking", -3),
                  Map.entry("trackinginfo", 2),
                  Map.entry("unblock", -3),
                  Map.entry("unpause", 2))),
          Map.entry(
              "cluster",
              // Every one answers that cluster support is disabled, as Redis without
              // cluster-enabled does; listed so that COMMAND and MULTI see them as Redis does.
              Map.ofEntries(
                  Map.entry("addslots", -3),
                  Map.entry("addslotsrange", -4),
                  Map.entry("bumpepoch", 2),
                  Map.entry("count-failure-reports", 3),
                  Map.entry("countkeysinslot", 3),
                  Map.entry("delslots", -3),
                  Map.entry("delslotsrange", -4),
                  Map.entry("failover", -2),
                  Map.entry("flushslots", 2),
                  Map.entry("forget", 3),
                  Map.entry("getkeysinslot", 4),
                  Map.entry("help", 2),
                  Map.entry("info", 2),
                  Map.entry("keyslot", 3),
                  Map.entry("links", 2),
                  Map.entry("meet", -4),
                  Map.entry("myid", 2),
                  Map.entry("myshardid", 2),
                  Map.entry("nodes", 2),
                  Map.entry("replicas", 3),
                  Map.entry("replicate", 3),
                  Map.entry("reset", -2),
                  Map.entry("saveconfig", 2),
                  Map.entry("set-config-epoch", 3),
                  Map.entry("setslot", -4),
                  Map.entry("shards", 2),
                  Map.entry("slaves", 3),
                  Map.entry("slots", 2))),
          Map.entry(
              "command",
              Map.of(
                  "count", 2,
                  "docs", -2,
                  "getkeys", -4,
                  "getkeysandflags", -4,
                  "help", 2,
                  "info", -2,
                  "list", -2)),
          Map.entry(
              "config", Map.of("get", -3, "help", 2, "resetstat", 2, "rewrite", 2, "set", -4)),
          Map.entry(
              "function",
              Map.of(
                  "delete", 3,
                  "dump", 2,
                  "flush", -2,
                  "help", 2,
                  "kill", 2,
                  "list", -2,
                  "load", -3,
                  "restore", -3,
                  "stats", 2)),
          Map.entry(
              "latency",
              Map.of(
                  "doctor", 2,
                  "graph", 3,
                  "help", 2,
                  "histogram", -2,
                  "history", 3,
                  "latest", 2,
                  "reset", -2)),
          Map.entry(
              "memory",
              Map.of(
                  "doctor", 2, "help", 2, "malloc-stats", 2, "purge", 2, "stats", 2, "usage", -3)),
          Map.entry(
              "object", Map.of("encoding", 3, "freq", 3, "help", 2, "idletime", 3, "refcount", 3)),
          Map.entry(
              "pubsub",
              Map.of(
                  "channels", -2,
                  "help", 2,
                  "numpat", 2,
                  "numsub", -2,
                  "shardchannels", -2,
                  "shardnumsub", -2)),
          Map.entry(
              "script",
              Map.of("debug", 3, "exists", -3, "flush", -2, "help", 2, "kill", 2, "load", 3)),
          Map.entry("slowlog", Map.of("get", -2, "help", 2, "len", 2, "reset", 2)),
          Map.entry(
              "xgroup",
              Map.of(
                  "create", -5,
                  "createconsumer", 5,
                  "delconsumer", 5,
                  "destroy", 4,
                  "help", 2,
                  "setid", -5)),
          Map.entry("xinfo", Map.of("consumers", 4, "groups", 3, "help", 2, "stream", -3)),
          Map.entry("module", Map.of("help", 2, "list", 2, "load", -3, "loadex", -3, "unload", 3)));

  /**
   * The subcommands Redis flags deny-oom (its containers are not): refused, as a deny-oom command
   * is, while used memory is over maxmemory.
   */
  private static final java.util.Set<String> DENY_OOM =
      java.util.Set.of(
          "function|load", "function|restore", "xgroup|create", "xgroup|createconsumer");

  /** Whether {@code r}, a request for {@code command}, is a deny-oom subcommand. */
  static boolean denyOom(String command, Request r) {
    return r.argc() > 1
        && ARITY.containsKey(command)
        && DENY_OOM.contains(command + "|" + r.string(1).toLowerCase(Locale.ROOT));
  }

  /** The subcommands of {@code container}, none if it is not one. */
  static java.util.Set<String> of(String container) {
    Map<String, Integer> subs = ARITY.get(container);
    return subs == null ? java.util.Set.of() : new java.util.TreeSet<>(subs.keySet());
  }

  /** The arity of {@code container|sub}, or 0 if there is no such subcommand. */
  static int arity(String container, String sub) {
    Map<String, Integer> subs = ARITY.get(container);
    Integer arity = subs == null ? null : subs.get(sub);
    return arity == null ? 0 : arity;
  }

  /**
   * The error Redis gives before running {@code r}, a request for the command {@code command}, if
   * it names an unknown subcommand of a container or gives one the wrong number of arguments; null
   * otherwise (not a container, or a subcommand that may run).
   */
  static String refusal(String command, Request r) {
    Map<String, Integer> subs = ARITY.get(command);
    if (subs == null || r.argc() < 2) {
      return null;
    }
    Integer arity = subs.get(r.string(1).toLowerCase(Locale.ROOT));
    if (arity == null) {
      return IntrospectionCommands.unknownSubcommand(r, r.string(0).toUpperCase(Locale.ROOT))
          .getMessage();
    }
    int argc = r.argc();
    if (arity >= 0 ? argc != arity : argc < -arity) {
      return CommandError.arity(command + "|" + r.string(1).toLowerCase(Locale.ROOT)).getMessage();
    }
    return null;
  }
}
