package dev.cellar.store;

import dev.cellar.platform.ThreadPriority;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs background compaction passes on a thread at idle CPU priority ({@code SCHED_IDLE}) while the
 * log is under {@link dev.cellar.CellarOptions#idleCompactionLimit}, so they take only CPU the
 * application leaves idle; past the limit the {@link MaintenanceAgent} compacts at its own
 * priority, and a pass in progress here yields to it (see {@link Maintenance#compactWhileIdle}).
 *
 * <p>Why a thread of its own: an unprivileged process can lower a thread's priority but never raise
 * it again, so the thread that must compete when the log is overgrown cannot be the one that waits
 * for idle CPU.
 */
final class IdleCompactor implements Runnable {
  private static final long BUSY_NANOS = 100_000_000L;

  /** Woken by the log when a segment fills, which is when a pass can become due. */
  private static final long IDLE_NANOS = 1_000_000_000L;

  private final Maintenance maintenance;
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
      if (maintenance.writeFailure() == null && !maintenance.compactionUrgent()) {
        compacting.runIfDue(
            () -> reclaimed[0] = maintenance.compactWhileIdle(() -> !thread.running()));
      }
      LockSupport.parkNanos(reclaimed[0] > 0 ? BUSY_NANOS : IDLE_NANOS);
    }
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
}
