package dev.cellar.store;

import dev.cellar.platform.ThreadPriority;
import java.util.concurrent.locks.LockSupport;

/**
 * The background duty cycle: seal segments the writer has left, write a checkpoint when the
 * interval has passed, and run a throttled compaction pass once the log has reached {@link
 * dev.cellar.CellarOptions#idleCompactionLimit} (below it, the low-priority {@link IdleCompactor}
 * compacts). Sealing, checkpoints and passes never overlap: they hold the store's maintenance lock.
 *
 * <p>Failures: each duty backs off and logs on its own ({@link RetryingDuty}), so a full disk that
 * stops checkpoints does not also delay sealing (which gives space back by truncating segments).
 * While writes are refused for lack of space, the agent probes once a second for space to return
 * ({@link StoreHealth#probeSpace()}), so the store reports it without waiting for a write. After a
 * failed fsync nothing more is written at all: the store is read-only until reopened, and any fsync
 * from here on could report success for pages the kernel has dropped.
 *
 * <p>A checkpoint also comes early once the segments compaction replaced add up to {@link
 * #OBSOLETE_CHECKPOINT_BYTES} and to the index's size: those segments can only be deleted (and
 * unmapped) after a checkpoint that no longer names them, so under heavy overwrite the timer alone
 * lets the disk and the resident set grow by the write rate times the interval (gigabytes a minute
 * at 100 MB/s). Waiting for as many obsolete bytes as the index holds keeps the extra checkpoint
 * writes of a large store below what compaction itself writes.
 */
final class MaintenanceAgent implements Runnable {
  /** Pause after a cycle that compacted or checkpointed: more may be due soon. */
  private static final long BUSY_NANOS = 100_000_000L;

  /**
   * Pause after a cycle that found nothing to do. The log wakes the agent when a segment fills
   * ({@link #wake}), which is when sealing and compaction become due, so waiting longer costs
   * nothing; waking ten times a second on an idle store cost a server twenty futex calls a second.
   */
  private static final long IDLE_NANOS = 1_000_000_000L;

  private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;
  static final long OBSOLETE_CHECKPOINT_BYTES = 256L << 20;

  private final Maintenance maintenance;
  private final AgentThread thread;
  private final RetryingDuty sealing;
  private final RetryingDuty checkpointing;
  private final RetryingDuty compacting;
  private long lastCheckpoint = System.nanoTime();
  private long lastProbe = System.nanoTime();

  /**
   * Obsolete bytes a checkpoint left behind (an open cursor defers their deletion): only growth
   * beyond them calls for another early checkpoint, or a long scan would get one every cycle.
   */
  private long obsoleteAfterCheckpoint;

  /**
   * Set when opening replayed at least as many log bytes as a checkpoint would write (the index):
   * without a checkpoint soon after, every later open replays that stretch again, and a process
   * that crashes repeatedly (a crash loop, a supervisor restarting it) replays more each time.
   */
  private boolean replayCheckpointDue;

  MaintenanceAgent(Maintenance maintenance, String name) {
    this.maintenance = maintenance;
    this.thread = new AgentThread("cellar-maintenance-" + name, this);
    this.sealing = new RetryingDuty("sealing segments of " + maintenance.directory());
    this.checkpointing = new RetryingDuty("checkpoint of " + maintenance.directory());
    this.compacting = new RetryingDuty("compaction of " + maintenance.directory());
  }

  void start() {
    dev.cellar.RecoveryReport recovery = maintenance.recoveryReport();
    replayCheckpointDue =
        recovery != null
            && recovery.replayedBytes() > 0
            && recovery.replayedBytes() >= maintenance.indexBytes();
    thread.start();
  }

  @Override
  public void run() {
    int nice = maintenance.options().backgroundNice();
    if (nice > 0) {
      // 0 means "the application's priority", which may be below 0: leave the thread as it started.
      ThreadPriority.lowerCurrentThread(nice);
    }
    while (thread.running()) {
      boolean busy = maintenance.writeFailure() == null && doWork();
      LockSupport.parkNanos(busy ? BUSY_NANOS : idleNanos());
    }
  }

  /** Asks for a cycle now: a segment has filled, so sealing, and maybe compaction, are due. */
  void wake() {
    thread.wake();
  }

  /**
   * Until the next timed duty: a checkpoint interval shorter than a second is kept. Never below the
   * busy pause: a checkpoint that is overdue because it keeps failing (a full disk) must not turn
   * the agent into a loop that wakes a hundred times a second to back off again.
   */
  private long idleNanos() {
    long interval = maintenance.options().checkpointInterval().toNanos();
    if (interval <= 0) {
      return IDLE_NANOS;
    }
    long untilCheckpoint = interval - (System.nanoTime() - lastCheckpoint);
    return Math.clamp(untilCheckpoint, BUSY_NANOS, IDLE_NANOS);
  }

  /**
   * One cycle; returns whether it compacted or checkpointed (so another cycle should follow soon).
   */
  private boolean doWork() {
    boolean busy = false;
    sealing.runIfDue(maintenance::sealFullSegmentsUnlessIdlePass);
    long interval = maintenance.options().checkpointInterval().toNanos();
    if (thread.running()
        && interval > 0
        && (replayCheckpointDue
            || System.nanoTime() - lastCheckpoint >= interval
            || obsoletePileUp())
        && checkpointing.runIfDue(() -> maintenance.writeCheckpoint(false, false))) {
      replayCheckpointDue = false;
      lastCheckpoint = System.nanoTime();
      obsoleteAfterCheckpoint = maintenance.obsoleteBytes();
      busy = true;
    }
    // Below the idle-compaction limit the low-priority IdleCompactor does this, with idle CPU only.
    if (thread.running()
        && maintenance.options().backgroundCompaction()
        && maintenance.compactionUrgent()) {
      long[] reclaimed = {0};
      compacting.runIfDue(
          () -> reclaimed[0] = maintenance.compactInBackground(() -> !thread.running()));
      busy |= reclaimed[0] > 0;
    }
    if (thread.running()
        && maintenance.diskFull() != null
        && System.nanoTime() - lastProbe >= PROBE_INTERVAL_NANOS) {
      lastProbe = System.nanoTime();
      try {
        maintenance.probeSpace();
      } catch (java.io.IOException | RuntimeException stillFull) {
        // Expected while the disk is full; the store logged the episode when it began.
      }
    }
    return busy;
  }

  private boolean obsoletePileUp() {
    long obsolete = maintenance.obsoleteBytes();
    obsoleteAfterCheckpoint =
        Math.min(
            obsoleteAfterCheckpoint, obsolete); // a BGSAVE or an explicit checkpoint deleted some
    long grown = obsolete - obsoleteAfterCheckpoint;
    return grown >= OBSOLETE_CHECKPOINT_BYTES && grown >= maintenance.indexBytes();
  }

  void stop() {
    thread.stop();
  }

  /** Asks the thread to stop without waiting for it ({@link AgentThread#requestStop}). */
  void requestStop() {
    thread.requestStop();
  }
}
