package dev.cellar.log;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Lets readers of the log (change streams following its tail) sleep until it grows, instead of
 * polling it.
 *
 * <p>The append path pays one volatile read while nobody waits: {@link #appended()} takes the lock
 * and signals only when {@link #waiters} is non-zero. No wake-up is lost: a waiter counts itself
 * before it reads the condition it waits for (a volatile the writer has published before it calls
 * {@link #appended()}), and the writer publishes before it reads the count, so of the two at least
 * one sees the other; a writer that sees a waiter takes the lock, which the waiter holds until it
 * sleeps on the condition.
 */
public final class AppendSignal {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition grown = lock.newCondition();
  private volatile int waiters;
  private volatile boolean closed;

  /** After a record was published; called by the log writer, outside its append lock. */
  void appended() {
    if (waiters != 0) {
      signalAll();
    }
  }

  /** Wakes every waiter for good (the store is closing). */
  public void close() {
    closed = true;
    signalAll();
  }

  private void signalAll() {
    lock.lock();
    try {
      grown.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code ready} holds, the signal is closed or {@code timeoutNanos} have passed;
   * returns whether {@code ready} held. {@code ready} must read state the writer publishes before
   * {@link #appended()} (the appended seq).
   */
  public boolean await(BooleanSupplier ready, long timeoutNanos) throws InterruptedException {
    long nanos = timeoutNanos;
    lock.lock();
    try {
      waiters++; // only ever changed under the lock; volatile for the writer's unlocked read
      try {
        while (!ready.getAsBoolean()) {
          if (closed || nanos <= 0) {
            return false;
          }
          nanos = grown.awaitNanos(nanos);
        }
        return true;
      } finally {
        waiters--;
      }
    } finally {
      lock.unlock();
    }
  }
}
