package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients blocked in {@code BLPOP}, {@code BRPOP}, {@code BLMOVE}, {@code BLMPOP} (and their
 * sorted-set and stream kin) until one of their keys gets something, or their timeout passes.
 *
 * <h2>How</h2>
 *
 * A blocking command that finds nothing registers a {@link Waiter} for each of its keys while it
 * still holds their stripe locks, marks its session blocked (its connection stops executing the
 * requests behind it, as Redis queues them), and answers nothing yet. A command that adds to a key
 * {@link #signal}s it; the key is then ready. Once the command has ended and released its locks,
 * the {@link Dispatcher} has this thread {@link #serveReady serve} the ready keys, as Redis does
 * after each command: the waiters of each key try again in the order they blocked, so the client
 * that has waited longest is served first, and one that cannot be served (its destination is of the
 * wrong type) gets its error while the next one is served. A retry that pops something pushes to
 * its destination, which makes that key ready in turn, served in the same pass.
 *
 * <p>A retry runs on the signalling thread, under the waiter's key locks, into a reply of its own;
 * the reply is handed to the waiter's own connection thread ({@link ClientChannel#resume}), which
 * writes it and unblocks the session. A waiter's {@link Waiter#state} is claimed before the retry,
 * so that its timeout, firing on the client's thread meanwhile, and a second signaller cannot both
 * answer it. If the client's connection dies while its reply is on the way, the element is lost
 * with it, as in Redis when a served client disconnects before reading its reply.
 *
 * <p>Inside a transaction or a script, a signal is held until the writes are visible (a waiter
 * retrying earlier would find nothing and miss it), and dropped if they are not applied.
 *
 * <p>Thread-safe: the maps are guarded by this object, a waiter's answer by its state, and the
 * ready keys are the signalling thread's own.
 */
final class BlockedClients {
  /** What a blocked command does: try again, or give up at its timeout. */
  interface Attempt {
    /**
     * Tries the command again, on whichever thread serves the key; true if it answered (it found
     * something, or failed). Its writes count as the client's: the client's reply waits for them to
     * be durable.
     */
    boolean retry(ReplyWriter out);

    /** Answers the timeout, on the client's thread. */
    void timedOut(ReplyWriter out);

    /**
     * Whether the client is also to be told when its key goes ({@code XREADGROUP}, answered
     * NOGROUP): Redis counts such keys apart, as {@code total_blocking_keys_on_nokey}.
     */
    default boolean onNoKey() {
      return false;
    }
  }

  private static final int WAITING = 0;
  private static final int SERVING = 1;
  private static final int DONE = 2;

  /** One blocked client. */
  final class Waiter {
    private final Session session;
    private final int database;
    private final int protocol;
    private final List<Object> keys;
    private final Attempt attempt;

    /** The blocked command's statistics: an error it is answered with later fails it. */
    private final CommandStats.Counters counters;

    /** {@link #WAITING}, {@link #SERVING} (a retry runs) or {@link #DONE} (answered or gone). */
    private final AtomicInteger state = new AtomicInteger(WAITING);

    /** Set when the timeout fired during a retry that then found nothing. */
    private volatile boolean timedOut;

    private volatile ScheduledFuture<?> timeout;

    private Waiter(
        Session session, int database, int protocol, List<Object> keys, Attempt attempt) {
      this.counters = server.stats().of(session.lastCommand());
      this.session = session;
      this.database = database;
      this.protocol = protocol;
      this.keys = keys;
      this.attempt = attempt;
    }

    /** On the serving thread: tries again; the answer, if any, goes to the client's thread. */
    private void serve() {
      if (!state.compareAndSet(WAITING, SERVING)) {
        return;
      }
      // Its command runs now: the invalidations of its own changes follow its reply.
      Tracking tracking = server.tracking();
      Object trackedOuter = tracking.active() ? tracking.begin(session, null, true) : NOT_TRACKED;
      try {
        serveTracked();
      } finally {
        if (trackedOuter != NOT_TRACKED) {
          tracking.end(trackedOuter);
        }
      }
    }

    private void serveTracked() {
      ReplyWriter reply = new ReplyWriter(64);
      reply.countErrors(server.stats().errors);
      reply.protocol(protocol);
      boolean answered;
      ServerContext.Scope previous = server.enter(database);
      try {
        answered = attempt.retry(reply);
      } catch (RuntimeException e) {
        reply.reset();
        reply.error(e instanceof CommandError ? e.getMessage() : "ERR " + e);
        answered = true;
      } finally {
        server.leave(previous);
      }
      if (!answered) {
        state.set(WAITING);
        if (timedOut) {
          session.channel().resume(this::expire); // the timeout fired while this retry ran
        }
        return;
      }
      state.set(DONE);
      forget();
      if (reply.errorsSinceLastAsked()) {
        counters.failed.increment(); // as Redis: NOGROUP for a destroyed group, for one
      }
      byte[] answer = reply.copy(0, reply.size());
      session
          .channel()
          .resume(
              out -> {
                out.replay(answer);
                session.wrote();
                session.unblock();
              });
    }

    private static final Object NOT_TRACKED = new Object();

    /** On the client's thread: the timeout passed. */
    private void expire(ReplyWriter out) {
      timedOut = true;
      if (state.compareAndSet(WAITING, DONE)) {
        forget();
        attempt.timedOut(out);
        session.unblock();
      }
    }

    private void forget() {
      ScheduledFuture<?> t = timeout;
      if (t != null) {
        t.cancel(false);
      }
      unregister(this);
    }
  }

  /** A thread's keys made ready and not yet served. */
  private static final class Ready {
    final Set<Object> keys = new LinkedHashSet<>();
    boolean serving;
  }

  private final ServerContext server;
  private final Map<Object, Set<Waiter>> byKey = new HashMap<>();
  private final Map<Session, Waiter> bySession = new HashMap<>();
  private volatile int waiting;
  private final ThreadLocal<List<Object>> held = new ThreadLocal<>();
  private final ThreadLocal<Ready> ready = ThreadLocal.withInitial(Ready::new);
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
    Waiter w = new Waiter(session, database, session.out().protocol(), names, attempt);
    synchronized (this) {
      for (Object k : names) {
        byKey.computeIfAbsent(k, unused -> new LinkedHashSet<>()).add(w);
      }
      bySession.put(session, w);
      waiting = bySession.size();
    }
    session.block();
    if (timeoutMillis > 0) {
      w.timeout =
          timer.schedule(
              () -> session.channel().resume(w::expire), timeoutMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Something was added to {@code key}: it is ready, its waiters are served after the command. */
  void signal(byte[] key) {
    Object name = DatabaseKey.of(server.databaseIndex(), key.clone());
    List<Object> holding = held.get();
    if (holding != null) {
      holding.add(name);
    } else {
      ready.get().keys.add(name);
    }
  }

  /**
   * Serves the keys this thread made ready, in order, each key's waiters in the order they blocked;
   * keys made ready meanwhile (a served {@code BLMOVE}'s destination) are served too. Called with
   * no key locks held, once a command has ended; does nothing inside a transaction or script, whose
   * signals wait for its end.
   */
  void serveReady() {
    Ready r = ready.get();
    if (r.serving || r.keys.isEmpty() || held.get() != null) {
      return;
    }
    r.serving = true;
    try {
      while (!r.keys.isEmpty()) {
        Iterator<Object> first = r.keys.iterator();
        Object name = first.next();
        first.remove();
        List<Waiter> inOrder;
        synchronized (this) {
          Set<Waiter> set = byKey.get(name);
          if (set == null) {
            continue;
          }
          inOrder = new ArrayList<>(set);
        }
        for (Waiter w : inOrder) {
          w.serve();
        }
      }
    } finally {
      r.serving = false;
    }
  }

  /** {@code SWAPDB} swapped databases {@code a} and {@code b}: their waiters' keys are ready. */
  void databasesSwapped(int a, int b) {
    readyAllOf(a);
    readyAllOf(b);
  }

  /**
   * {@code FLUSHDB} emptied database {@code db}: its waiters look again (a group reader is told).
   */
  void databaseFlushed(int db) {
    readyAllOf(db);
  }

  private synchronized void readyAllOf(int db) {
    for (Waiter w : bySession.values()) {
      if (w.database == db) {
        ready.get().keys.addAll(w.keys);
      }
    }
  }

  /**
   * {@code INFO}'s {@code total_blocking_keys} and {@code total_blocking_keys_on_nokey}: the keys
   * clients are blocked on, and those of them some client also waits on to be deleted.
   */
  synchronized long[] blockingKeys() {
    long onNoKey = 0;
    for (Set<Waiter> waiters : byKey.values()) {
      for (Waiter w : waiters) {
        if (w.attempt.onNoKey()) {
          onNoKey++;
          break;
        }
      }
    }
    return new long[] {byKey.size(), onNoKey};
  }

  /** Whether anyone is blocked: commands skip {@link #signal} when no one is. */
  boolean any() {
    return waiting != 0;
  }

  /** Starts holding signals for a transaction or script; false if an enclosing run holds them. */
  boolean hold() {
    if (held.get() != null) {
      return false;
    }
    held.set(new ArrayList<>());
    return true;
  }

  /** Ends {@link #hold}: the held keys are ready if the run's writes were applied. */
  void release(boolean applied) {
    List<Object> keys = held.get();
    held.remove();
    if (applied && keys != null) {
      ready.get().keys.addAll(keys);
    }
  }

  /**
   * {@code CLIENT UNBLOCK}: the client with id {@code clientId}, if blocked here, is answered as
   * its timeout would answer it, or with Redis's {@code UNBLOCKED} error; false if it is not
   * blocked (or is being served at this moment, and so is answered anyway).
   */
  boolean unblock(long clientId, boolean error) {
    Waiter w = null;
    synchronized (this) {
      for (Waiter candidate : bySession.values()) {
        if (candidate.session.id() == clientId) {
          w = candidate;
          break;
        }
      }
    }
    if (w == null || !w.state.compareAndSet(WAITING, DONE)) {
      return false;
    }
    w.forget();
    Waiter unblocked = w;
    w.session
        .channel()
        .resume(
            out -> {
              if (error) {
                unblocked.counters.failed.increment();
                out.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
              } else {
                unblocked.attempt.timedOut(out);
              }
              unblocked.session.unblock();
            });
    return true;
  }

  /** The client is gone (or was killed): it waits no more. */
  void remove(Session session) {
    Waiter w;
    synchronized (this) {
      w = bySession.get(session);
    }
    if (w != null && w.state.compareAndSet(WAITING, DONE)) {
      w.forget();
    }
  }

  /** Clients blocked now, for INFO's {@code blocked_clients}. */
  synchronized int count() {
    return bySession.size();
  }

  private synchronized void unregister(Waiter w) {
    bySession.remove(w.session, w);
    waiting = bySession.size();
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
