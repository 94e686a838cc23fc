package dev.cellar.store;

import java.io.IOException;

/**
 * A background compaction pass gave up: a low-priority one because the log outgrew {@link
 * dev.cellar.CellarOptions#idleCompactionLimit} (a normal-priority pass takes over) or another
 * thread waits for the maintenance lock; either kind because the store is closing. Not a failure:
 * the pass undid its work, as a failed one does, and nothing is logged.
 */
final class CompactionYieldedException extends IOException {
  CompactionYieldedException(String reason) {
    super(reason);
  }

  /** Thrown as control flow, often: the stack trace would cost more than it tells. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
