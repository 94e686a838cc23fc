package dev.cellar.store;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@code everysec} duty: fsync the log once a second when anything was appended since the last
 * fsync. Its own thread, so that a long compaction or checkpoint never delays it.
 */
final class FlushAgent implements Runnable {
  static final long INTERVAL_MILLIS = 1000;

  private final Durability durability;
  private final AgentThread thread;

  FlushAgent(Durability durability, String name) {
    this.durability = durability;
    this.thread = new AgentThread("cellar-flusher-" + name, this);
  }

  void start() {
    thread.start();
  }

  @Override
  public void run() {
    while (thread.running()) {
      long started = System.nanoTime();
      if (durability.appendedSeq() > durability.durableSeq()) {
        try {
          durability.syncAll();
        } catch (RuntimeException e) {
          // The store has recorded the failure and refuses writes; nothing more to flush.
          return;
        }
      }
      long sleep = INTERVAL_MILLIS - (System.nanoTime() - started) / 1_000_000;
      if (sleep > 0) {
        LockSupport.parkNanos(sleep * 1_000_000);
      }
    }
  }

  void stop() {
    thread.stop();
  }
}
