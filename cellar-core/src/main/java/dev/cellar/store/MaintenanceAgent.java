package dev.cellar.store;

import java.util.concurrent.locks.LockSupport;

import java.io.IOException;

/**
 * The background duty cycle: seal segments the writer has left, write a checkpoint when the
 * interval has passed, and run a throttled compaction pass. One thread owns all three, so they
 * never overlap.
 *
 * <p>A checkpoint also comes early once the segments compaction replaced add up to {@link
 * #OBSOLETE_CHECKPOINT_BYTES} and to the index's size: those segments can only be deleted (and
 * unmapped) after a checkpoint that no longer names them, so under heavy overwrite the timer alone
 * lets the disk and the resident set grow by the write rate times the interval (gigabytes a
 * minute at 100 MB/s). Waiting for as many obsolete bytes as the index holds keeps the extra
 * checkpoint writes of a large store below what compaction itself writes.
 */
final class MaintenanceAgent implements Runnable {
  private static final System.Logger LOG = System.getLogger("dev.cellar");
  private static final long IDLE_MILLIS = 100;
  static final long OBSOLETE_CHECKPOINT_BYTES = 256L << 20;

  private final Store store;
  private final Thread thread;
  private volatile boolean running = true;
  private long lastCheckpoint = System.nanoTime();
  /**
   * Obsolete bytes a checkpoint left behind (an open cursor defers their deletion): only growth
   * beyond them calls for another early checkpoint, or a long scan would get one every cycle.
   */
  private long obsoleteAfterCheckpoint;

  MaintenanceAgent(Store store, String name) {
    this.store = store;
    this.thread = Thread.ofPlatform().daemon().name("cellar-maintenance-" + name).unstarted(this);
  }

  void start() {
    thread.start();
  }

  @Override
  public void run() {
    while (running) {
      try {
        doWork();
      } catch (IOException | RuntimeException e) {
        if (!running || store.isClosed()) {
          return;
        }
        LOG.log(System.Logger.Level.WARNING, "background maintenance of " + store.directory() + " failed; will retry", e);
      }
      LockSupport.parkNanos(IDLE_MILLIS * 1_000_000);
    }
  }

  private void doWork() throws IOException {
    store.sealFullSegments();
    long interval = store.options().checkpointInterval().toNanos();
    if (interval > 0 && (System.nanoTime() - lastCheckpoint >= interval || obsoletePileUp())) {
      store.writeCheckpoint(false, false);
      lastCheckpoint = System.nanoTime();
      obsoleteAfterCheckpoint = store.obsoleteBytes();
    }
    if (store.options().backgroundCompaction() && running) {
      store.compactInBackground();
    }
  }

  private boolean obsoletePileUp() {
    long obsolete = store.obsoleteBytes();
    obsoleteAfterCheckpoint = Math.min(obsoleteAfterCheckpoint, obsolete); // a BGSAVE or an explicit checkpoint deleted some
    long grown = obsolete - obsoleteAfterCheckpoint;
    return grown >= OBSOLETE_CHECKPOINT_BYTES && grown >= store.indexBytes();
  }

  void stop() {
    running = false;
    // Never interrupt: an interrupt during FileChannel I/O closes the channel under the store.
    LockSupport.unpark(thread);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
