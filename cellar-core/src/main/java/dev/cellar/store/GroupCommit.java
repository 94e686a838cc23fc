package dev.cellar.store;

import dev.cellar.log.LogWriter;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Makes appended records durable, sharing one fsync among all writers that wait at once.
 *
 * <p>The classic leader/follower scheme: a writer that needs seq {@code s} durable takes the sync
 * lock; if by then a previous leader's fsync already covered {@code s} it returns at once;
 * otherwise it becomes the leader and fsyncs everything appended so far, covering every writer that
 * queued behind it while the previous fsync ran. With W concurrent writers one fsync serves up to W
 * puts.
 *
 * <p>An fsync failure is never retried as if it succeeded (after a failed fsync the kernel may have
 * dropped the dirty pages: PostgreSQL's "fsyncgate"). It is reported to the {@link FailureSink},
 * which stops all writes until the store is reopened and recovers from what is on disk.
 */
final class GroupCommit {
  /** Receives the first durability failure. */
  interface FailureSink {
    void writeFailed(IOException cause);
  }

  private final LogWriter log;
  private final FailureSink failures;
  private final ReentrantLock syncLock = new ReentrantLock();
  private final LongAdder fsyncs = new LongAdder();
  private volatile long durableSeq;

  GroupCommit(LogWriter log, FailureSink failures, long durableSeq) {
    this.log = log;
    this.failures = failures;
    this.durableSeq = durableSeq;
  }

  /** Returns once every record up to {@code seq} is on stable storage. */
  void awaitDurable(long seq) throws IOException {
    if (durableSeq >= seq) {
      return;
    }
    syncLock.lock();
    try {
      if (durableSeq < seq) {
        syncLocked();
      }
    } finally {
      syncLock.unlock();
    }
  }

  /** Syncs everything appended so far (the everysec agent, close, checkpoints). */
  void syncAll() throws IOException {
    syncLock.lock();
    try {
      if (durableSeq < log.appendedSeq()) {
        syncLocked();
      }
    } finally {
      syncLock.unlock();
    }
  }

  private void syncLocked() throws IOException {
    try {
      long covered = log.sync();
      fsyncs.increment();
      durableSeq = Math.max(durableSeq, covered);
    } catch (IOException e) {
      failures.writeFailed(e);
      throw e;
    }
  }

  long durableSeq() {
    return durableSeq;
  }

  long fsyncs() {
    return fsyncs.sum();
  }
}
