package dev.cellar.store;

import java.util.concurrent.locks.LockSupport;

/**
 * The thread of one of the store's background agents (flusher, maintenance, idle compaction):
 * started once, woken early with {@link #wake}, and stopped by a flag its loop reads ({@link
 * #running}), then joined. Never interrupted: an interrupt during FileChannel I/O closes the
 * channel under the store.
 */
final class AgentThread {
  private final Thread thread;
  private volatile boolean running = true;

  AgentThread(String name, Runnable loop) {
    this.thread = Thread.ofPlatform().daemon().name(name).unstarted(loop);
  }

  void start() {
    thread.start();
  }

  /** False once {@link #stop} was called: the loop ends, and long work in it should give up. */
  boolean running() {
    return running;
  }

  /** Ends a park of the agent's loop now. */
  void wake() {
    LockSupport.unpark(thread);
  }

  /** Asks the loop to end and waits until it has. */
  void stop() {
    requestStop();
    join();
  }

  /**
   * Asks the loop to end without waiting: agents that may wait for each other (a low-priority pass
   * for the lock a throttled pass holds) are all asked first, then joined.
   */
  void requestStop() {
    running = false;
    LockSupport.unpark(thread);
  }

  /** Waits until the loop has ended. */
  void join() {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
