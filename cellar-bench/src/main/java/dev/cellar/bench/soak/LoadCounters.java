package dev.cellar.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the load clients have done so far, shared by all of them and read by the sampler. The
 * first few problems are kept verbatim for the report; the rest are only counted.
 */
final class LoadCounters {
  private static final int KEPT_PROBLEMS = 10;

  final LongAdder operations = new LongAdder();
  /** Error replies ({@code -ERR ...}): none are expected, the workload sends only valid commands. */
  final LongAdder errorReplies = new LongAdder();
  /** Replies of the wrong type, or values and counters that are not what this client wrote. */
  final LongAdder wrongReplies = new LongAdder();
  /** Connections lost or timed out (each is reopened). */
  final LongAdder connectionFailures = new LongAdder();
  private final List<String> problems = new ArrayList<>();

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
