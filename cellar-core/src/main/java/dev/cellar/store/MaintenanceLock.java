package dev.cellar.store;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The lock that sealing, checkpoints, compaction passes and close take in turn, and the rule that a
 * low-priority compaction pass yields to everyone else who wants it.
 *
 * <h2>The yield rule</h2>
 *
 * The idle compactor runs at the lowest CPU priority. Starved by a busy application, its pass could
 * hold the lock for as long as the application stays busy, and with it a checkpoint, a SHUTDOWN or
 * an explicit compaction. So every other holder counts itself as waiting before it blocks ({@link
 * #hold}), and the low-priority pass asks {@link #othersWaiting()} between batches of records and
 * gives up when anyone waits ({@link #holdForIdlePass}). The count is raised before the holder
 * checks anything, so a pass that starts meanwhile sees it. The agent's periodic sealing does not
 * wait behind such a pass at all ({@link #holdUnlessIdlePass}): the pass seals first.
 *
 * <p>The lock is reentrant: a holder that calls another holder (a compaction pass sealing segments
 * first) does not count itself as waiting, or an idle pass would yield to itself.
 */
final class MaintenanceLock {
  /** Work done holding the lock. */
  interface Work<T> {
    T run() throws IOException;
  }

  /** Work done holding the lock, with no result. */
  interface Action {
    void run() throws IOException;
  }

  private final Object lock = new Object();

  /** Threads about to wait for {@link #lock}, other than the low-priority pass. */
  private final AtomicInteger waiters = new AtomicInteger();

  /** A low-priority pass holds, or is about to take, {@link #lock}. */
  private volatile boolean idlePassRunning;

  /** Runs {@code work} holding the lock; a low-priority pass that holds it yields. */
  <T> T hold(Work<T> work) throws IOException {
    if (Thread.holdsLock(lock)) {
      return work.run();
    }
    waiters.incrementAndGet();
    boolean counted = true;
    try {
      synchronized (lock) {
        waiters.decrementAndGet();
        counted = false;
        return work.run();
      }
    } finally {
      if (counted) {
        waiters.decrementAndGet();
      }
    }
  }

  /** {@link #hold(Work)} for work with no result. */
  void hold(Action action) throws IOException {
    hold(
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * Runs the low-priority pass's {@code work} holding the lock, unless someone waits for it;
   * returns {@code ifYielded} then. The work must poll {@link #othersWaiting()} and give up when it
   * says so.
   */
  <T> T holdForIdlePass(Work<T> work, T ifYielded) throws IOException {
    idlePassRunning = true;
    try {
      if (othersWaiting()) {
        return ifYielded;
      }
      synchronized (lock) {
        return work.run();
      }
    } finally {
      idlePassRunning = false;
    }
  }

  /**
   * Runs {@code action} holding the lock, but not if a low-priority pass holds it or is about to:
   * that pass does the same work first, and waiting behind it could take as long as the application
   * keeps the CPU busy.
   */
  void holdUnlessIdlePass(Action action) throws IOException {
    // Counted first, then checked: a pass that starts meanwhile sees the count and gives up.
    waiters.incrementAndGet();
    try {
      if (idlePassRunning) {
        return;
      }
      synchronized (lock) {
        action.run();
      }
    } finally {
      waiters.decrementAndGet();
    }
  }

  /** Whether the calling thread holds the lock (for assertions). */
  boolean heldByCurrentThread() {
    return Thread.holdsLock(lock);
  }

  /** Whether a low-priority pass holds the lock or is about to take it. */
  boolean idlePassRunning() {
    return idlePassRunning;
  }

  /** Whether anyone other than the low-priority pass waits for the lock: that pass should yield. */
  boolean othersWaiting() {
    return waiters.get() > 0;
  }

  /** {@code stopping}, or anyone waiting: the condition a low-priority pass yields on. */
  BooleanSupplier yieldWhen(BooleanSupplier stopping) {
    return () -> stopping.getAsBoolean() || othersWaiting();
  }
}
