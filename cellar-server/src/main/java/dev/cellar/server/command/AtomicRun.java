package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.resp.ReplyWriter;

/**
 * Runs commands as one atomic whole: an EXEC's queue, a script. They write into a {@link
 * TransactionView} (seen by them alone), their deliveries to subscribers are held, and at the end
 * their writes go to the engine as one atomic unit, under the {@link CommitGate}, after which the
 * deliveries go out. If the unit cannot be written (too large, a full disk) nothing of it is
 * applied, the replies written so far are replaced by one error, and the deliveries are dropped.
 *
 * <p>The caller holds the key locks the run needs (see {@link TransactionCommands#stripes}).
 */
final class AtomicRun {
  private AtomicRun() {}

  /** The commands of one run; returns whether their writes are to be applied. */
  @FunctionalInterface
  interface Body {
    boolean run();
  }

  /**
   * Runs {@code body}, which writes its replies to {@code out}; a failed commit answers {@code
   * failurePrefix} and the engine's reason instead. Runs nest: a script inside an EXEC writes into
   * the EXEC's view, and its deliveries wait for the EXEC's.
   */
  static void run(Session s, ReplyWriter out, String failurePrefix, Body body) {
    ServerContext server = s.server();
    TransactionView view = new TransactionView(server.store(), budget(server));
    int mark = out.size();
    Cellar previous = server.beginView(view);
    boolean holding = server.pubsub().holdDeliveries();
    boolean holdingSignals = server.blocked().hold();
    boolean applied = false;
    try {
      boolean apply;
      try {
        apply = body.run();
      } finally {
        server.endView(previous);
      }
      if (!apply) {
        return;
      }
      server.commits().begin();
      try {
        if (view.commit()) {
          s.wrote();
        }
        applied = true;
      } catch (RuntimeException e) {
        out.truncate(mark);
        out.error(
            failurePrefix
                + Dispatcher.errorText(server.commands().get("exec"), e).replaceFirst("^ERR ", ""));
      } finally {
        server.commits().end();
      }
    } finally {
      if (holding) {
        server.pubsub().release(applied);
      }
      if (holdingSignals) {
        server.blocked().release(applied);
      }
    }
  }

  /**
   * The most bytes of keys and values one run may write: what one atomic unit of the log holds, a
   * segment, less room for the records' framing.
   */
  static long budget(ServerContext server) {
    return server.config().segmentSize() / 2;
  }
}
