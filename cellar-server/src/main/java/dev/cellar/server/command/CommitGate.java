package dev.cellar.server.command;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a command that reads several keys without locking them (MGET) see a transaction's writes all
 * or not at all. An EXEC's writes reach the index together (one atomic unit, under all their
 * shards' locks), but a reader of keys a and b that reads a before the commit and b after would see
 * a state that never was. The reader notes the gate's version when no commit is in progress, reads,
 * and reads again if a commit began or ended meanwhile.
 *
 * <p>Writers of several keys outside transactions (MSET) hold the keys' stripe locks, which a
 * reader does not take; what this gate adds is that a transaction, which writes keys of many
 * commands, is never seen half applied. Costs a reader two or three volatile reads.
 */
final class CommitGate {
  private final AtomicInteger inProgress = new AtomicInteger();
  private final AtomicLong version = new AtomicLong();

  /** A commit's writes begin to become visible. */
  void begin() {
    inProgress.incrementAndGet();
  }

  /** They are all visible. */
  void end() {
    version.incrementAndGet();
    inProgress.decrementAndGet();
  }

  /** Waits until no commit is in progress and returns the version to check against. */
  long quiet() {
    while (inProgress.get() != 0) {
      Thread.onSpinWait();
    }
    return version.get();
  }

  /** Whether no commit began or ended since {@link #quiet} returned {@code seen}. */
  boolean unchanged(long seen) {
    return inProgress.get() == 0 && version.get() == seen;
  }
}
