package dev.cellar.store;

import dev.cellar.DiskFullException;
import java.io.IOException;

/**
 * One background duty of the {@link MaintenanceAgent} (sealing, checkpointing, compacting) and what
 * happens when it fails: it is retried after a delay that doubles from {@link #FIRST_DELAY_NANOS}
 * to {@link #MAX_DELAY_NANOS}, and logged once when it starts failing, then at most once a minute
 * with a count, and once more when it succeeds again.
 *
 * <p>Why: the agent wakes every 100 ms. On a full disk a checkpoint or a compaction pass fails
 * every time, after copying the index under shard locks or megabytes of records; retried and logged
 * at that rate, a full disk would become a busy thread and a log that fills what little space is
 * left. The delay stays short enough that the duty resumes within seconds of space returning.
 *
 * <p>Owned by the agent's thread.
 */
final class RetryingDuty {
  /** A duty's work. */
  interface Work {
    void run() throws IOException;
  }

  private static final System.Logger LOG = System.getLogger("dev.cellar");
  static final long FIRST_DELAY_NANOS = 100_000_000L;
  static final long MAX_DELAY_NANOS = 10_000_000_000L;
  static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

  private final String name;
  private long failures;
  private long delay;
  private long nextAttempt;
  private long lastLogged;

  RetryingDuty(String name) {
    this.name = name;
  }

  /**
   * Runs {@code work} unless a failure's delay has not passed; returns whether it ran and
   * succeeded. A failure is kept here (logged as above), not thrown.
   */
  boolean runIfDue(Work work) {
    long now = System.nanoTime();
    if (failures > 0 && now - nextAttempt < 0) {
      return false;
    }
    try {
      work.run();
    } catch (IOException | RuntimeException e) {
      failed(e, now);
      return false;
    }
    if (failures > 0) {
      LOG.log(
          System.Logger.Level.INFO,
          name + " succeeded again after " + failures + " failed attempts");
      failures = 0;
    }
    return true;
  }

  private void failed(Exception e, long now) {
    failures++;
    delay = failures == 1 ? FIRST_DELAY_NANOS : Math.min(MAX_DELAY_NANOS, delay * 2);
    nextAttempt = now + delay;
    if (failures == 1) {
      lastLogged = now;
      // A full disk is an expected condition with a known remedy; its stack trace helps nobody.
      if (DiskFullException.isNoSpace(e)) {
        LOG.log(
            System.Logger.Level.WARNING,
            name + " failed: disk full (" + e.getMessage() + "); retrying until space returns");
      } else {
        LOG.log(System.Logger.Level.WARNING, name + " failed; will retry", e);
      }
    } else if (now - lastLogged >= LOG_INTERVAL_NANOS) {
      lastLogged = now;
      LOG.log(
          System.Logger.Level.WARNING,
          name + " still failing after " + failures + " attempts: " + e.getMessage());
    }
  }

  /** Consecutive failures so far (0 after a success). */
  long failures() {
    return failures;
  }
}
