package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.List;

/**
 * {@code WAIT} and {@code WAITAOF}, as a Redis primary with no replicas answers them: clients and
 * libraries call them after writes (some on every write) to learn how many copies exist.
 *
 * <ul>
 *   <li>{@code WAIT numreplicas timeout}: 0 replicas acknowledge. Asking for none answers at once;
 *       asking for more blocks until the timeout in milliseconds (0: forever, as in Redis, until
 *       {@code CLIENT UNBLOCK}), then answers 0. Inside a transaction or a script it never blocks.
 *   <li>{@code WAITAOF numlocal numreplicas timeout}: the local count is 1 once the client's writes
 *       are on disk: Cellar's log is always on, so it syncs every open database's log (a no-op
 *       under {@code appendfsync always}, where every acknowledged write is on disk already) and
 *       answers {@code [1, 0]}, the local count being whether the writes are on disk, whatever
 *       {@code numlocal} asked (0 or 1). Asking for replicas blocks as {@code WAIT} does, except
 *       inside a transaction.
 * </ul>
 */
final class WaitCommands {
  private WaitCommands() {}

  static void register(CommandTable t) {
    t.add(
            "wait",
            3,
            "",
            0,
            0,
            0,
            "generic",
            "Blocks until the asynchronous replication of all preceding write commands sent by the"
                + " connection is completed.",
            WaitCommands::waitReplicas)
        .add(
            "waitaof",
            4,
            "noscript",
            0,
            0,
            0,
            "generic",
            "Blocks until all of the preceding write commands sent by the connection are written"
                + " to the append-only file of the master and/or replicas.",
            WaitCommands::waitaof);
  }

  private static long count(Request r, int i) {
    if (!r.isLong(i)) {
      throw CommandError.NOT_INTEGER;
    }
    return r.longValue(i);
  }

  private static long timeout(Request r, int i) {
    if (!r.isLong(i)) {
      throw new CommandError("ERR timeout is not an integer or out of range");
    }
    long millis = r.longValue(i);
    if (millis < 0) {
      throw new CommandError("ERR timeout is negative");
    }
    return millis;
  }

  static void waitReplicas(Session s, Request r, ReplyWriter out) {
    long wanted = count(r, 1);
    long timeout = timeout(r, 2);
    if (wanted <= 0 || s.server().inAtomicRun() || s.script()) {
      out.integer(0);
      return;
    }
    block(s, timeout, o -> o.integer(0));
  }

  static void waitaof(Session s, Request r, ReplyWriter out) {
    long local = count(r, 1);
    if (local < 0 || local > 1) {
      throw new CommandError("ERR value is out of range, value must between 0 and 1");
    }
    long replicas = count(r, 2);
    if (replicas < 0) {
      throw new CommandError("ERR value is out of range, must be positive");
    }
    long timeout = timeout(r, 3);
    s.server().databases().forEachStore(Cellar::sync); // then the client's writes are on disk
    if (replicas == 0 || s.server().inAtomicRun()) {
      out.array(2);
      out.integer(1);
      out.integer(0);
      return;
    }
    block(
        s,
        timeout,
        o -> {
          o.array(2);
          o.integer(1);
          o.integer(0);
        });
  }

  /** Blocks on no key until the timeout, then answers {@code reply}. */
  private static void block(
      Session s, long timeoutMillis, java.util.function.Consumer<ReplyWriter> reply) {
    s.server()
        .blocked()
        .block(
            s,
            List.of(),
            timeoutMillis,
            new BlockedClients.Attempt() {
              @Override
              public boolean retry(ReplyWriter o) {
                return false; // no replica will ever acknowledge
              }

              @Override
              public void timedOut(ReplyWriter o) {
                reply.accept(o);
              }
            });
  }
}
