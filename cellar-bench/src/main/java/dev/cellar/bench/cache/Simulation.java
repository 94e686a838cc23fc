package dev.cellar.bench.cache;

/** Plays a trace through a policy, counting misses and the largest size the policy reached. */
final class Simulation {
  private Simulation() {}

  static SimulationResult run(
      PolicyKind kind, TraceKind trace, double sizePercent, int capacity, int[] requests) {
    return run(kind, trace, sizePercent, capacity, requests, new int[] {0, 0});
  }

  /**
   * As above, also counting the misses among the requests {@code window[0]} to {@code window[1]}.
   */
  static SimulationResult run(
      PolicyKind kind,
      TraceKind trace,
      double sizePercent,
      int capacity,
      int[] requests,
      int[] window) {
    CachePolicy policy = kind.create(capacity);
    long misses = 0;
    int largest = 0;
    long windowMisses = 0;
    for (int i = 0; i < requests.length; i++) {
      if (!policy.access(requests[i])) {
        misses++;
        largest = Math.max(largest, policy.size());
        if (i >= window[0] && i < window[1]) {
          windowMisses++;
        }
      }
    }
    return new SimulationResult(
        kind,
        trace,
        sizePercent,
        capacity,
        requests.length,
        misses,
        policy.hitsThatWrote(),
        largest,
        window[1] - window[0],
        windowMisses);
  }

  /**
   * Requests per second of one thread playing the trace through a fresh policy, best of {@code
   * rounds}: the cost of the policy's own data structures (index included), with no data copied.
   */
  static double requestsPerSecond(PolicyKind kind, int capacity, int[] requests, int rounds) {
    double best = 0;
    long sink = 0;
    for (int round = 0; round < rounds; round++) {
      CachePolicy policy = kind.create(capacity);
      long start = System.nanoTime();
      for (int key : requests) {
        if (policy.access(key)) {
          sink++;
        }
      }
      long elapsed = System.nanoTime() - start;
      best = Math.max(best, requests.length / (elapsed / 1e9));
    }
    if (sink == Long.MIN_VALUE) {
      System.out.println(sink); // keeps the hits live for the JIT
    }
    return best;
  }
}
