package dev.cellar.store;

import java.util.concurrent.locks.LockSupport;

import java.io.IOException;

/**
 * The background duty cycle: seal segments the writer has left, write a checkpoint when the
 * interval has passed, and run a throttled compaction pass. One thread owns all three, so they
 * never overlap.
 */
final class MaintenanceAgent implements Runnable {
  private static final System.Logger LOG = System.getLogger("dev.cellar");
  private static final long IDLE_MILLIS = 100;

  private final Store store;
  private final Thread thread;
  private volatile boolean running = true;
  private long lastCheckpoint = System.nanoTime();

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
    if (interval > 0 && System.nanoTime() - lastCheckpoint >= interval) {
      store.writeCheckpoint(false, false);
      lastCheckpoint = System.nanoTime();
    }
    if (store.options().backgroundCompaction() && running) {
      store.compactInBackground();
    }
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
