package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Clients blocked in {@code BLPOP}, {@code BRPOP}, {@code BLMOVE}, {@code BLMPOP} (and their
 * sorted-set kin) until one of their keys gets something to pop, or their timeout passes.
 *
 * <h2>How</h2>
 *
 * A blocking command that finds nothing registers a {@link Waiter} for each of its keys while it
 * still holds their stripe locks, marks its session blocked (its connection stops executing the
 * requests behind it, as Redis queues them), and answers nothing yet. A command that adds to a key
 * {@link #signal}s it after its write: every waiter on the key is asked to try again, on its own
 * client's thread ({@link ClientChannel#resume}); the first to find an element takes it and
 * answers, the others stay blocked. Redis serves the longest-waiting client first; here the retries
 * race, and any one of them wins: each pushed element still goes to exactly one client.
 *
 * <p>Inside a transaction or a script, a signal is held until the writes are visible (a waiter
 * retrying earlier would find nothing and miss it), and dropped if they are not applied.
 *
 * <p>Thread-safe: the map is guarded by this object; a waiter's state is touched on its client's
 * thread only.
 */
final class BlockedClients {
  /** What a blocked command does on its client's thread: try again, or give up at its timeout. */
  interface Attempt {
    /** Tries the command again; true if it answered (it found something, or failed). */
    boolean retry(ReplyWriter out);

    /** Answers the timeout. */
    void timedOut(ReplyWriter out);
  }

  /** One blocked client. */
  final class Waiter {
    private final Session session;
    private final int database;
    private final List<Object> keys;
    private final Attempt attempt;
    private ScheduledFuture<?> timeout;
    private boolean done;

    private Waiter(Session session, int database, List<Object> keys, Attempt attempt) {
      this.session = session;
      this.database = database;
      this.keys = keys;
      this.attempt = attempt;
    }

    /** On the client's thread. */
    private void retry(ReplyWriter out) {
      if (!done) {
        ServerContext.Scope previous = server.enter(database);
        try {
          if (attempt.retry(out)) {
            finish();
          }
        } finally {
          server.leave(previous);
        }
      }
    }

    /** On the client's thread. */
    private void expire(ReplyWriter out) {
      if (!done) {
        attempt.timedOut(out);
        finish();
      }
    }

    private void finish() {
      done = true;
      if (timeout != null) {
        timeout.cancel(false);
      }
      unregister(this);
      session.unblock();
    }
  }

  private final ServerContext server;
  private final Map<Object, Set<Waiter>> byKey = new HashMap<>();
  private final Map<Session, Waiter> bySession = new HashMap<>();
  private final ThreadLocal<List<Object>> held = new ThreadLocal<>();
  private final ScheduledExecutorService timer;

  /** Keys are named in the current database of {@code server} ({@link DatabaseKey}). */
  BlockedClients(ServerContext server) {
    this.server = server;
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "cellar-blocking-timeouts");
              thread.setDaemon(true);
              return thread;
            });
    t.setRemoveOnCancelPolicy(true);
    this.timer = t;
  }

  /**
   * Blocks {@code session} on {@code keys} until {@code attempt} succeeds or {@code timeoutMillis}
   * pass (0: forever). Called by the blocking command, holding its keys' stripe locks.
   */
  void block(Session session, List<byte[]> keys, long timeoutMillis, Attempt attempt) {
    int database = server.databaseIndex();
    List<Object> names = new ArrayList<>(keys.size());
    keys.forEach(k -> names.add(DatabaseKey.of(database, k.clone())));
    Waiter w = new Waiter(session, database, names, attempt);
    synchronized (this) {
      for (Object k : names) {
        byKey.computeIfAbsent(k, unused -> new LinkedHashSet<>()).add(w);
      }
      bySession.put(session, w);
    }
    session.block();
    if (timeoutMillis > 0) {
      w.timeout =
          timer.schedule(
              () -> session.channel().resume(w::expire), timeoutMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Something was added to {@code key}: its waiters try again. */
  void signal(byte[] key) {
    Object name = DatabaseKey.of(server.databaseIndex(), key);
    List<Object> holding = held.get();
    if (holding != null) {
      holding.add(DatabaseKey.of(server.databaseIndex(), key.clone()));
      return;
    }
    signal(name);
  }

  private void signal(Object name) {
    List<Waiter> waiting;
    synchronized (this) {
      Set<Waiter> set = byKey.get(name);
      if (set == null) {
        return;
      }
      waiting = new ArrayList<>(set);
    }
    for (Waiter w : waiting) {
      w.session.channel().resume(w::retry);
    }
  }

  /** {@code SWAPDB} swapped databases {@code a} and {@code b}: their waiters try again. */
  void databasesSwapped(int a, int b) {
    List<Waiter> waiting = new ArrayList<>();
    synchronized (this) {
      for (Waiter w : bySession.values()) {
        if (w.database == a || w.database == b) {
          waiting.add(w);
        }
      }
    }
    for (Waiter w : waiting) {
      w.session.channel().resume(w::retry);
    }
  }

  /** Whether anyone is blocked: commands skip {@link #signal} when no one is. */
  synchronized boolean any() {
    return !bySession.isEmpty();
  }

  /** Starts holding signals for a transaction or script; false if an enclosing run holds them. */
  boolean hold() {
    if (held.get() != null) {
      return false;
    }
    held.set(new ArrayList<>());
    return true;
  }

  /** Ends {@link #hold}: sends the held signals if the run's writes were applied. */
  void release(boolean applied) {
    List<Object> keys = held.get();
    held.remove();
    if (applied && keys != null) {
      keys.forEach(this::signal);
    }
  }

  /** The client is gone (or was killed): it waits no more. */
  void remove(Session session) {
    Waiter w;
    synchronized (this) {
      w = bySession.get(session);
    }
    if (w != null) {
      w.done = true;
      if (w.timeout != null) {
        w.timeout.cancel(false);
      }
      unregister(w);
    }
  }

  /** Clients blocked now, for INFO's {@code blocked_clients}. */
  synchronized int count() {
    return bySession.size();
  }

  private synchronized void unregister(Waiter w) {
    bySession.remove(w.session, w);
    for (Object k : w.keys) {
      Set<Waiter> set = byKey.get(k);
      if (set != null) {
        set.remove(w);
        if (set.isEmpty()) {
          byKey.remove(k);
        }
      }
    }
  }
}
