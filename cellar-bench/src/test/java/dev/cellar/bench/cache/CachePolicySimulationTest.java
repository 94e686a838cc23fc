package dev.cellar.bench.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's simulation scaled down (100,000 keys, 200,000 requests): every policy keeps to
 * its capacity on every trace, and the hit ratios are what the traces make them, between the floor
 * of random replacement and the ceiling of holding the most popular keys.
 */
class CachePolicySimulationTest {
  private static final int KEYS = 100_000;
  private static final int REQUESTS = 200_000;
  private static final long SEED = 42;

  @Test
  void everyPolicyKeepsToItsCapacityOnEveryTrace() {
    for (TraceKind trace : TraceKind.values()) {
      int[] requests = trace.generate(KEYS, REQUESTS, SEED);
      for (int capacity : new int[] {100, 1_000, 10_000}) {
        for (PolicyKind kind : PolicyKind.values()) {
          SimulationResult r = Simulation.run(kind, trace, 0, capacity, requests);
          assertTrue(
              r.largestSize() <= capacity,
              kind.id() + " on " + trace.id() + ": " + r.largestSize() + " > " + capacity);
          assertTrue(r.largestSize() >= capacity * 9 / 10, kind.id() + " fills its capacity");
        }
      }
    }
  }

  @Test
  void onZipfOnePointTwoEveryPolicyBeatsRandomAndNoneBeatsTheStaticOptimum() {
    int[] requests = TraceKind.ZIPF_1_2.generate(KEYS, REQUESTS, SEED);
    ZipfSampler zipf = new ZipfSampler(KEYS, 1.2);
    for (int capacity : new int[] {1_000, 5_000}) {
      double random = hitRatio(PolicyKind.RANDOM, requests, capacity);
      // Under independent requests, holding the `capacity` most popular keys is the best any
      // policy can do; the trace's sampling noise is well under a point at this length.
      double optimum = zipf.topMass(capacity);
      for (PolicyKind kind :
          List.of(PolicyKind.LRU, PolicyKind.CLOCK, PolicyKind.S3_FIFO, PolicyKind.SIEVE)) {
        double hit = hitRatio(kind, requests, capacity);
        assertTrue(
            hit > random, kind.id() + " at " + capacity + ": " + hit + " <= random " + random);
        assertTrue(
            hit < optimum + 0.01, kind.id() + " at " + capacity + ": " + hit + " > " + optimum);
      }
    }
  }

  @Test
  void aWorkingSetSmallerThanTheCacheHitsAfterItsFirstPass() {
    int[] requests = new int[REQUESTS];
    for (int i = 0; i < requests.length; i++) {
      requests[i] = (i * 7919) % 500; // 500 keys, round and round
    }
    for (PolicyKind kind : PolicyKind.values()) {
      SimulationResult r = Simulation.run(kind, TraceKind.ZIPF_0_99, 0, 1_000, requests);
      assertEquals(500, r.misses(), kind.id() + ": only the first pass misses");
    }
    assertTrue(1 - 500.0 / REQUESTS > 0.99);
  }

  @Test
  void theScanTraceHoldsOneSequentialPassInTheMiddle() {
    int[] requests = TraceKind.ZIPF_0_99_SCAN.generate(KEYS, REQUESTS, SEED);
    int scan = (int) (KEYS * TraceKind.SCAN_FRACTION);
    assertEquals(REQUESTS + scan, requests.length);
    for (int k = 0; k < scan; k++) {
      assertEquals(k, requests[REQUESTS / 2 + k]);
    }
    int[] window = TraceKind.ZIPF_0_99_SCAN.window(KEYS, REQUESTS);
    assertEquals(REQUESTS / 2 + scan, window[0], "the window starts right after the scan");
    assertEquals(REQUESTS / 10, window[1] - window[0]);
  }

  @Test
  void theShiftingTraceMovesItsHotKeys() {
    int[] requests = TraceKind.ZIPF_0_99_SHIFTING.generate(KEYS, REQUESTS, SEED);
    int phase = REQUESTS / TraceKind.PHASES;
    List<Integer> hottest = new ArrayList<>();
    for (int p = 0; p < TraceKind.PHASES; p++) {
      hottest.add(mostFrequent(requests, p * phase, (p + 1) * phase));
    }
    for (int p = 1; p < TraceKind.PHASES; p++) {
      assertNotEquals(hottest.get(p - 1), hottest.get(p), "phase " + p + " has a new hottest key");
    }
    int[] steady = TraceKind.ZIPF_0_99.generate(KEYS, REQUESTS, SEED);
    assertEquals(mostFrequent(steady, 0, phase), mostFrequent(steady, REQUESTS - phase, REQUESTS));
  }

  private static double hitRatio(PolicyKind kind, int[] requests, int capacity) {
    return 1 - Simulation.run(kind, TraceKind.ZIPF_1_2, 0, capacity, requests).missRatio();
  }

  private static int mostFrequent(int[] requests, int from, int to) {
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = from; i < to; i++) {
      counts.merge(requests[i], 1, Integer::sum);
    }
    return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }
}
