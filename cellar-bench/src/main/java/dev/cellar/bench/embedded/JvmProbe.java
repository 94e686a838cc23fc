package dev.cellar.bench.embedded;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Heap and garbage-collection measurements of the current JVM.
 *
 * <p>{@link System#gc()} is a full, stop-the-world collection under G1 (the benchmark never sets
 * {@code ExplicitGCInvokesConcurrent}), and its wall time is the pause an application would see in
 * a full GC with this live set. A few collections run first so the heap is settled and later ones
 * measure marking and compacting the live set, not freeing leftovers of the load.
 */
final class JvmProbe {
  private static final int SETTLING_COLLECTIONS = 3;
  private static final int TIMED_COLLECTIONS = 3;

  private JvmProbe() {}

  /** Heap bytes in use after settling collections. */
  static long heapUsedAfterGc() {
    for (int i = 0; i < SETTLING_COLLECTIONS; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Median wall time in milliseconds of a few full collections. */
  static double fullGcMillis() {
    double[] millis = new double[TIMED_COLLECTIONS];
    for (int i = 0; i < millis.length; i++) {
      long start = System.nanoTime();
      System.gc();
      millis[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(millis);
    return millis[millis.length / 2];
  }
}
