package dev.cellar.store;

import dev.cellar.platform.ThreadPriority;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs background compaction passes on a thread at idle CPU priority ({@code SCHED_IDLE}) while the
 * log is under {@link dev.cellar.CellarOptions#idleCompactionLimit}, so they take only CPU the
 * application leaves idle; past the limit the {@link MaintenanceAgent} compacts at its own
 * priority, and a pass in progress here yields to it (see {@link Maintenance#compactWhileIdle}).
 *
 * <p>Once the log has gone half a second to a second without an append (this thread looks every
 * half second until a pass at rest has followed the last append, and every second after that), it
 * also runs one pass at rest ({@link Maintenance#compactAtRest}): while writes go on, compaction
 * lets segments die further before it copies them, which keeps its CPU small; a store that has
 * stopped writing gets its space back instead, once, and is left alone until it writes again.
 *
 * <p>Why a thread of its own: an unprivileged process can lower a thread's priority but never raise
 * it again, so the thread that must compete when the log is overgrown cannot be the one that waits
 * for idle CPU.
 */
final class IdleCompactor implements Runnable {
  private static final long BUSY_NANOS = 100_000_000L;

  /** Woken by the log when a segment fills, which is when a pass can become due. */
  private static final long IDLE_NANOS = 1_000_000_000L;

  /**
   * How long the log must go without an append, as this thread sees it, before the store counts as
   * at rest; also the pause once it has seen the log stop, so the pass follows soon after.
   */
  private static final long QUIET_NANOS = 500_000_000L;

  private final Maintenance maintenance;

  /** The seq appended when this thread last looked, and since when it has stood there. */
  private long lastSeq = -1;

  private long quietSince;

  /** The seq at which the last pass at rest ran to the end (-1: none yet). */
  private long restedAt = -1;

  private final AgentThread thread;
  private final RetryingDuty compacting;

  IdleCompactor(Maintenance maintenance, String name) {
    this.maintenance = maintenance;
    this.thread = new AgentThread("cellar-idle-compaction-" + name, this);
    this.compacting = new RetryingDuty("low-priority compaction of " + maintenance.directory());
  }

  void start() {
    thread.start();
  }

  @Override
  public void run() {
    ThreadPriority.idleCurrentThread();
    while (thread.running()) {
      long[] reclaimed = {0};
      if (maintenance.writeFailure() == null) {
        if (!maintenance.compactionUrgent()) {
          compacting.runIfDue(
              () -> reclaimed[0] = maintenance.compactWhileIdle(() -> !thread.running()));
        }
        long seq = maintenance.appendedSeq();
        if (reclaimed[0] <= 0 && atRest(seq)) {
          // Not run (backing off after a failure) or failed: tried again when this thread wakes.
          reclaimed[0] = Compactor.YIELDED;
          compacting.runIfDue(
              () -> reclaimed[0] = maintenance.compactAtRest(() -> !thread.running()));
          if (reclaimed[0] != Compactor.YIELDED) {
            restedAt = seq;
          }
        }
      }
      long pause;
      if (reclaimed[0] > 0) {
        pause = BUSY_NANOS;
      } else if (lastSeq != restedAt) {
        pause = QUIET_NANOS;
      } else {
        pause = IDLE_NANOS;
      }
      LockSupport.parkNanos(pause);
    }
  }

  /**
   * Whether the log, appended up to {@code seq}, has had no append for {@link #QUIET_NANOS} and no
   * pass at rest has run to the end since its last one: a store at rest is compacted once, not
   * again each time this thread wakes (a pass that yielded is tried again).
   */
  private boolean atRest(long seq) {
    long now = System.nanoTime();
    if (seq != lastSeq) {
      lastSeq = seq;
      quietSince = now;
      return false;
    }
    return seq != restedAt && now - quietSince >= QUIET_NANOS;
  }

  void wake() {
    thread.wake();
  }

  /**
   * Stops the thread; a pass in progress yields (undoing its work) rather than finishing at low
   * priority.
   */
  void stop() {
    thread.stop();
  }

  /** Asks the thread to stop without waiting for it ({@link AgentThread#requestStop}). */
  void requestStop() {
    thread.requestStop();
  }
}
