package dev.cellar.server.command;

import dev.cellar.CorruptStoreException;
import dev.cellar.DiskFullException;
import dev.cellar.LimitExceededException;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Runs a parsed request: finds the command, checks authentication, arity and memory, runs it and
 * turns every failure into an error reply, so no command can break the connection or the server.
 */
public final class Dispatcher {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");
  static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

  private final ServerContext server;
  private final Map<CommandSpec, CommandStats.Counters> counters = new IdentityHashMap<>();

  public Dispatcher(ServerContext server) {
    this.server = server;
    for (CommandSpec spec : server.commands().all()) {
      counters.put(spec, server.stats().of(spec.name()));
    }
  }

  /**
   * Runs one command and appends its reply. The clock is read once per command: {@code startNanos}
   * is when this command's turn began (the end of the previous command of the batch, so a command's
   * time includes its parsing), and the return value is when it ended, which the caller passes on
   * as the next command's start. {@code batchMillis}, the wall-clock time of the batch, is what
   * {@code CLIENT LIST} shows as the last command's time. Reading the clock three times a command
   * was 6% of a pipelined SET's time.
   *
   * @return the time this command ended, in {@link System#nanoTime()} units
   */
  public long execute(
      Session session, Request request, ReplyWriter out, long startNanos, long batchMillis) {
    CommandSpec spec = server.commands().find(request);
    if (spec == null) {
      refuse(session, out, unknownCommand(request));
      return startNanos;
    }
    if (!session.authenticated() && !spec.isNoAuth()) {
      refuse(session, out, "NOAUTH Authentication required.");
      return startNanos;
    }
    if (!spec.arityAccepts(request.argc())) {
      counters.get(spec).rejected.increment();
      refuse(session, out, "ERR wrong number of arguments for '" + spec.name() + "' command");
      return startNanos;
    }
    if (session.pubSubOnly() && !PubSub.allowedWhileSubscribed(spec)) {
      counters.get(spec).rejected.increment();
      out.error(
          "ERR Can't execute '"
              + spec.name()
              + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in"
              + " this context");
      return startNanos;
    }
    // One volatile read a command when no script runs; the rest out of line, off the hot path.
    if (server.scripts().anyRunning() && refusedWhileBusy(session, spec, request, out)) {
      return startNanos;
    }
    if (session.inTransaction() && !TransactionCommands.runsInsideMulti(spec)) {
      // As Redis: a container's unknown subcommand or wrong arity is refused when queued.
      String refused = Subcommands.refusal(spec.name(), request);
      if (refused == null) {
        refused = DatabaseCommands.refusedInMulti(session, spec, request);
      }
      if (refused != null) {
        counters.get(spec).rejected.increment();
        refuse(session, out, refused);
        return startNanos;
      }
      // Queued, not run: only what Redis checks at queueing (and memory, since a queue that grows
      // past maxmemory is refused as a command would be).
      if (server.memory().limited() && !server.memory().admit()) {
        counters.get(spec).rejected.increment();
        refuse(session, out, OOM);
      } else {
        TransactionCommands.queue(session, request, out);
      }
      return startNanos;
    }
    ClusterRouting cluster = server.cluster();
    if (cluster != null && ClusterDispatch.handle(cluster, session, spec, request, out)) {
      counters.get(spec).calls.increment();
      return startNanos;
    }
    CommandStats.Counters c = counters.get(spec);
    if (spec.isContainer() && request.argc() > 1) {
      // As Redis: a subcommand is checked before it runs, and counted as a command of its own.
      c = subcommandCounters(server, spec, request);
      String refused = Subcommands.refusal(spec.name(), request);
      if (refused != null) {
        if (c != counters.get(spec)) {
          // A known subcommand's wrong arity; an unknown subcommand counts nowhere, as in Redis.
          c.rejected.increment();
        }
        refuse(session, out, refused);
        return startNanos;
      }
    }
    int mark = out.size();
    // The client's database, once anything but database 0 was used (see ServerContext).
    boolean scoped = server.databases().several();
    ServerContext.Scope outside = scoped ? server.enter(session.database()) : null;
    // Client-side caching: one volatile read a command while no client tracks.
    Tracking tracking = server.tracking();
    boolean tracked = tracking.active();
    Object trackedOuter = tracked ? tracking.begin(session, out, false) : null;
    try {
      // Inside the try: eviction deletes keys, and a delete on a full disk fails like any write.
      // Sized only under a limit: the common unlimited server does no per-command work here.
      if (server.memory().limited()) {
        if (spec.isDenyOom() || Subcommands.denyOom(spec.name(), request)) {
          if (!server.memory().admit()) {
            c.rejected.increment();
            out.error(OOM);
            return startNanos;
          }
        } else {
          // As Redis's processCommand: over the limit, any command evicts before it runs.
          server.memory().evictIfOver();
        }
      }
      out.errorsSinceLastAsked(); // what follows is this command's (see failed below)
      if (server.monitors().active() && spec.has("skip_monitor")) {
        // A script is shown as it starts, before the commands it runs (Redis's
        // scriptPrepareForRun); other commands once they have run (observe).
        server.monitors().feed(session, session.database(), request);
      }
      session.commandStarted(spec, batchMillis);
      if (tracked) {
        tracking.executing();
      }
      spec.handler().run(session, request, out);
      if (spec.isWrite()) {
        session.wrote();
      }
    } catch (RuntimeException e) {
      out.truncate(mark);
      out.error(errorText(spec, e));
    } finally {
      if (tracked) {
        tracking.after(session, spec, request, trackedOuter);
      }
      if (scoped) {
        server.leave(outside);
      }
    }
    if (server.blocked().any()) {
      // As Redis: the clients blocked on what the command added are served after it, EXEC's and
      // scripts' included (which are not write commands).
      server.blocked().serveReady();
    }
    if (out.errorsSinceLastAsked()) {
      // As Redis: a command that answered an error failed, one of EXEC's queued commands
      // included (counted as its own), EXEC not for them.
      c.failed.increment();
    }
    long end = System.nanoTime();
    long nanos = end - startNanos;
    c.calls.increment();
    c.nanos.add(nanos);
    if (server.config().latencyTracking()) {
      c.latency.record(nanos);
    }
    server.latency().record(spec, nanos);
    observe(session, spec, request, nanos);
    return end;
  }

  /**
   * Answers BUSY, as Redis does, if a script has run past {@code busy-reply-threshold} and the
   * command is not one Redis lets through; true if it answered.
   */
  private boolean refusedWhileBusy(
      Session session, CommandSpec spec, Request request, ReplyWriter out) {
    Scripts.Run busy = server.scripts().busy(server.config().busyReplyThreshold());
    if (busy == null || allowedWhileBusy(spec, request)) {
      return false;
    }
    String error = Scripts.isFunction(busy) ? Scripts.BUSY_FUNCTION : Scripts.BUSY_SCRIPT;
    if (spec.name().equals("exec")) {
      // As Redis's rejectCommand: a refused EXEC discards its transaction (if any) and says why
      session.transaction(null);
      session.unwatch();
      out.error("EXECABORT Transaction discarded because of: " + error);
    } else {
      counters.get(spec).rejected.increment();
      refuse(session, out, error);
    }
    return true;
  }

  /**
   * The commands Redis flags {@code allow-busy}: those that stop a runaway script or end a
   * connection, and the transaction commands (a pipelined transaction must not lose its start).
   */
  private static boolean allowedWhileBusy(CommandSpec spec, Request request) {
    return switch (spec.name()) {
      case "auth", "discard", "hello", "multi", "quit", "reset", "shutdown", "unwatch", "watch" ->
          true;
      case "script" -> request.argc() > 1 && request.is(1, "kill");
      case "function" -> request.argc() > 1 && (request.is(1, "kill") || request.is(1, "stats"));
      default -> false;
    };
  }

  /** Answers {@code error}; inside MULTI it also dooms the transaction, as in Redis. */
  private static void refuse(Session session, ReplyWriter out, String error) {
    QueuedCommands queued = session.transaction();
    if (queued != null) {
      queued.flagError();
    }
    out.error(error);
  }

  /**
   * Runs one command queued by MULTI, inside EXEC: its reply or its error goes into EXEC's array,
   * and it counts as a call of its own in the command statistics, as in Redis. It runs in the
   * database of the EXEC (or script) that runs it.
   */
  static void runQueued(Session session, CommandSpec spec, Request request, ReplyWriter out) {
    CommandStats.Counters c =
        spec.isContainer() && request.argc() > 1
            ? subcommandCounters(session.server(), spec, request)
            : session.server().stats().of(spec.name());
    int mark = out.size();
    long start = System.nanoTime();
    out.errorsSinceLastAsked();
    MonitorFeed monitors = session.server().monitors();
    if (monitors.active() && spec.has("skip_monitor")) {
      monitors.feed(session, session.server().databaseIndex(), request); // a script, as it starts
    }
    try {
      session.commandStarted(spec, System.currentTimeMillis());
      spec.handler().run(session, request, out);
    } catch (RuntimeException e) {
      out.truncate(mark);
      out.error(errorText(spec, e));
    }
    Tracking tracking = session.server().tracking();
    if (tracking.active()) {
      tracking.inner(spec, request); // its keys count as read by the EXEC's or script's caller
    }
    if (out.errorsSinceLastAsked()) {
      c.failed.increment();
    }
    long nanos = System.nanoTime() - start;
    c.calls.increment();
    c.nanos.add(nanos);
    if (session.server().config().latencyTracking()) {
      c.latency.record(nanos);
    }
    if (monitors.active() && !spec.has("admin") && !spec.has("skip_monitor")) {
      // EXEC's commands as they run, before EXEC's own line; a script's from "lua".
      monitors.feed(session, session.server().databaseIndex(), request);
    }
  }

  /** The counters of {@code request}'s subcommand of the container {@code spec}: "client|id". */
  private static CommandStats.Counters subcommandCounters(
      ServerContext server, CommandSpec spec, Request request) {
    String sub = request.string(1).toLowerCase(java.util.Locale.ROOT);
    return Subcommands.arity(spec.name(), sub) == 0
        ? server.stats().of(spec.name())
        : server.stats().of(spec.name() + "|" + sub);
  }

  /**
   * SLOWLOG, LATENCY and MONITOR. Each is off or under its threshold for nearly every command, so
   * this costs three volatile reads and compares; only a slow command, or one run while somebody
   * monitors, does more.
   */
  private void observe(Session session, CommandSpec spec, Request request, long nanos) {
    long slowerThan = server.config().slowlogSlowerThan();
    if (slowerThan >= 0 && nanos >= slowerThan * 1000) {
      server.slowLog().record(session, request, nanos / 1000, server.config().slowlogMaxLen());
    }
    long threshold = server.config().latencyMonitorThreshold();
    if (threshold > 0 && nanos >= threshold * 1_000_000) {
      server
          .latencyMonitor()
          .record(spec.has("fast") ? "fast-command" : "command", nanos / 1_000_000);
    }
    if (server.monitors().active() && !spec.has("admin") && !spec.has("skip_monitor")) {
      // After the command, in the database it leaves the client in ("select 9" shows 9).
      server.monitors().feed(session, session.database(), request);
    }
  }

  static String errorText(CommandSpec spec, RuntimeException e) {
    return switch (e) {
      case CommandError error -> error.getMessage();
      case ReplyWriter.ReplyTooLarge large -> "ERR " + large.getMessage();
      case LimitExceededException limit -> "ERR " + limit.getMessage();
      case DiskFullException full ->
          "ERR disk full, write refused (reads go on; writes resume when space is freed): "
              + full.getMessage();
      case StoreIOException io -> "ERR " + serverWords(io.getMessage());
      case StoreClosedException closed -> "ERR server is shutting down";
      case CorruptStoreException corrupt -> {
        DamageLog.report(corrupt);
        yield "ERR " + corrupt.getMessage();
      }
      default -> {
        LOG.log(System.Logger.Level.ERROR, "command " + spec.name() + " failed", e);
        yield "ERR internal error in '" + spec.name() + "': " + e;
      }
    };
  }

  /** The engine speaks of reopening the store; a server's operator restarts the server. */
  public static String serverWords(String message) {
    return message
        .replace("reopen the store", "restart the server")
        .replace("the store is reopened", "the server is restarted");
  }

  /** Redis's text: the name and the first arguments, each cut so the whole stays short. */
  static String unknownCommand(Request request) {
    StringBuilder args = new StringBuilder();
    for (int i = 1; i < request.argc() && args.length() < 128; i++) {
      String a = request.string(i);
      int room = 128 - args.length();
      args.append('\'').append(a.length() > room ? a.substring(0, room) : a).append("' ");
    }
    String name =
        new String(
            request.buffer(),
            request.offset(0),
            Math.min(128, request.length(0)),
            StandardCharsets.UTF_8);
    return "ERR unknown command '" + name + "', with args beginning with: " + args;
  }
}
