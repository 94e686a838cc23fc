package dev.cellar.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the load clients have done so far, shared by all of them and read by the sampler. The first
 * few problems are kept verbatim for the report; the rest are only counted.
 */
final class LoadCounters {
  private static final int KEPT_PROBLEMS = 10;

  /**
   * An operation that takes longer than this is a stall, and fails the run: a client served with
   * pauses of seconds is not served. Two seconds is far above what this load sees on a quiet
   * machine (a few milliseconds at most, the BGSAVEs and full collections included), so a stall
   * means the server stopped serving, not that the machine was busy for a moment.
   */
  static final long STALL_MILLIS = 2000;

  final LongAdder operations = new LongAdder();

  /**
   * Error replies ({@code -ERR ...}): none are expected, the workload sends only valid commands.
   */
  final LongAdder errorReplies = new LongAdder();

  /** Replies of the wrong type, or values and counters that are not what this client wrote. */
  final LongAdder wrongReplies = new LongAdder();

  /** Connections lost or timed out (each is reopened). */
  final LongAdder connectionFailures = new LongAdder();

  /** Operations that took longer than {@link #STALL_MILLIS}. */
  final LongAdder stalls = new LongAdder();

  /** The longest operation so far, nanoseconds. */
  final LongAccumulator longestNanos = new LongAccumulator(Math::max, 0);

  private final List<String> problems = new ArrayList<>();

  /** Counts one completed operation that took {@code nanos}. */
  void served(long nanos) {
    operations.increment();
    longestNanos.accumulate(nanos);
    if (nanos > TimeUnit.MILLISECONDS.toNanos(STALL_MILLIS)) {
      stalls.increment();
      problem(
          "an operation took "
              + TimeUnit.NANOSECONDS.toMillis(nanos)
              + " ms (a stall: over "
              + STALL_MILLIS
              + " ms)");
    }
  }

  long errors() {
    return errorReplies.sum() + wrongReplies.sum() + connectionFailures.sum();
  }

  void problem(String description) {
    synchronized (problems) {
      if (problems.size() < KEPT_PROBLEMS) {
        problems.add(description);
      }
    }
  }

  List<String> problems() {
    synchronized (problems) {
      return List.copyOf(problems);
    }
  }
}
