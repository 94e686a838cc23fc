package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.Arrays;
import java.util.List;

/**
 * Transactions: MULTI EXEC DISCARD WATCH UNWATCH, with Redis 7's replies and errors.
 *
 * <h2>How EXEC is atomic</h2>
 *
 * <ul>
 *   <li><b>Against other clients' writes.</b> Every command that writes takes its keys' stripe
 *       locks ({@link KeyLocks}). EXEC takes the stripes of every key its commands and its watched
 *       keys name, in ascending order as multi-key commands do, before it checks the watched keys
 *       and holds them until its writes are applied; a transaction with a command whose keys the
 *       command table cannot name (FLUSHALL, KEYS, SCAN, ...) takes every stripe.
 *   <li><b>Against readers.</b> Its commands write into a {@link TransactionView}, which nobody
 *       else sees; at the end the writes go to the store as one atomic unit, which the engine puts
 *       into its index under all of their shards' locks at once.
 *   <li><b>Against crashes.</b> That unit is one piece of the log that recovery applies whole or
 *       not at all (docs/format/log.md, "Atomic units"). Under {@code appendfsync always} the EXEC
 *       reply, like any write's, waits until the unit is durable.
 * </ul>
 *
 * A command that fails inside EXEC answers its error in EXEC's array and the others still run, as
 * in Redis. Only a failure of the unit itself (a full disk, a transaction larger than one log
 * segment) fails the whole EXEC, with nothing applied.
 */
final class TransactionCommands {
  private TransactionCommands() {}

  static final String QUEUED = "QUEUED";

  static void register(CommandTable t) {
    t.add(
            "multi",
            1,
            "noscript loading stale fast allow_busy",
            0,
            0,
            0,
            "transactions",
            "Starts a transaction.",
            TransactionCommands::multi)
        .add(
            "exec",
            1,
            "noscript loading stale skip_slowlog",
            0,
            0,
            0,
            "transactions",
            "Executes all commands in a transaction.",
            TransactionCommands::exec)
        .add(
            "discard",
            1,
            "noscript loading stale fast allow_busy",
            0,
            0,
            0,
            "transactions",
            "Discards a transaction.",
            TransactionCommands::discard)
        .add(
            "watch",
            -2,
            "noscript loading stale fast allow_busy",
            1,
            -1,
            1,
            "transactions",
            "Monitors changes to keys to determine the execution of a transaction.",
            TransactionCommands::watch)
        .add(
            "unwatch",
            1,
            "noscript loading stale fast allow_busy",
            0,
            0,
            0,
            "transactions",
            "Forgets about watched keys of a transaction.",
            TransactionCommands::unwatch);
  }

  /** Whether {@code spec} runs at once inside MULTI instead of being queued. */
  static boolean runsInsideMulti(CommandSpec spec) {
    return switch (spec.name()) {
      case "exec", "discard", "multi", "watch", "quit", "reset" -> true;
      default -> false;
    };
  }

  /**
   * Queues {@code request} (found to be {@code spec}) in the session's transaction and answers
   * QUEUED, or refuses it when the queue is over the client's query buffer limit.
   */
  static void queue(Session s, Request request, ReplyWriter out) {
    QueuedCommands q = s.transaction();
    if (!q.add(request, s.server().config().maxQueryBuffer())) {
      q.flagError();
      out.error(
          "ERR the transaction's queued commands exceed client-query-buffer-limit ("
              + s.server().config().maxQueryBuffer()
              + " bytes); EXEC will discard it");
      return;
    }
    out.simple(QUEUED);
  }

  static void multi(Session s, Request r, ReplyWriter out) {
    if (s.inTransaction()) {
      out.error("ERR MULTI calls can not be nested");
      return;
    }
    s.transaction(new QueuedCommands());
    out.ok();
  }

  static void discard(Session s, Request r, ReplyWriter out) {
    if (!s.inTransaction()) {
      out.error("ERR DISCARD without MULTI");
      return;
    }
    s.transaction(null);
    s.unwatch();
    out.ok();
  }

  static void watch(Session s, Request r, ReplyWriter out) {
    if (s.inTransaction()) {
      out.error("ERR WATCH inside MULTI is not allowed");
      return;
    }
    WatchedKeys watched = s.watched(true);
    for (int i = 1; i < r.argc(); i++) {
      watched.watch(s, r.bytes(i));
    }
    out.ok();
  }

  static void unwatch(Session s, Request r, ReplyWriter out) {
    s.unwatch();
    out.ok();
  }

  static void exec(Session s, Request r, ReplyWriter out) {
    QueuedCommands q = s.transaction();
    if (q == null) {
      out.error("ERR EXEC without MULTI");
      return;
    }
    WatchedKeys watched = s.watched(false);
    s.transaction(null);
    if (q.dirty()) {
      s.unwatch();
      out.error("EXECABORT Transaction discarded because of previous errors.");
      return;
    }
    ServerContext server = s.server();
    int[] stripes = stripes(server.commands(), q.commands(), watched);
    KeyLocks locks = server.locks();
    int held = locks.lockAll(stripes, stripes.length);
    try {
      // Checked under the keys' locks: no write can come between the check and the run.
      boolean changed = watched != null && watched.changed(s);
      s.unwatch();
      if (changed) {
        out.nullArray();
        return;
      }
      run(s, q, out);
    } finally {
      locks.unlockAll(stripes, held);
    }
  }

  /** Runs the queued commands into EXEC's array reply and applies their writes as one unit. */
  private static void run(Session s, QueuedCommands q, ReplyWriter out) {
    ServerContext server = s.server();
    AtomicRun.run(
        s,
        out,
        "EXECABORT Transaction not applied, nothing of it was written: ",
        () -> {
          out.array(q.size());
          Request request = new Request();
          for (byte[][] args : q.commands()) {
            request.set(args);
            CommandSpec spec = server.commands().find(request);
            Dispatcher.runQueued(s, spec, request, out);
          }
          return true;
        });
  }

  /**
   * The stripes to hold while the transaction runs: those of every key its commands and watched
   * keys name, or all of them when a command's keys cannot be named.
   */
  static int[] stripes(CommandTable table, List<byte[][]> commands, WatchedKeys watched) {
    int[] out = new int[16];
    int n = 0;
    Request request = new Request();
    for (byte[][] args : commands) {
      request.set(args);
      CommandSpec spec = table.find(request);
      if (spec == null) {
        continue;
      }
      if (spec.firstKey() <= 0) {
        if (touchesKeyspace(spec)) {
          return allStripes();
        }
        continue;
      }
      int last = spec.lastKeyIndex(args.length);
      for (int k = spec.firstKey(); k <= last && k < args.length; k += Math.max(1, spec.step())) {
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        out[n++] = KeyLocks.stripe(args[k], 0, args[k].length);
      }
    }
    if (watched != null) {
      for (Object name : watched.keys()) {
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        byte[] key = DatabaseKey.bytes(name);
        out[n++] = KeyLocks.stripe(key, 0, key.length);
      }
    }
    return Arrays.copyOf(out, n); // KeyLocks.lockAll sorts them and drops repeats
  }

  /**
   * A command whose keys the table cannot name that reads or writes the keyspace as a whole
   * (FLUSHALL, KEYS, SCAN...) or keys its arguments name (EVAL, FCALL).
   */
  private static boolean touchesKeyspace(CommandSpec spec) {
    return spec.group().equals("generic")
        || spec.group().equals("server")
        || spec.group().equals("scripting")
        || spec.has("movablekeys");
  }

  private static int[] allStripes() {
    int[] all = new int[KeyLocks.STRIPES];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    return all;
  }
}
