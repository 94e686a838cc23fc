package dev.cellar.bench.ipc;

import java.util.Arrays;

/**
 * Every round trip of a timed cell, kept exactly and sorted once at the end. A cell of a few
 * seconds holds at most a few million samples (8 bytes each), so no histogram's rounding is needed;
 * the array grows by doubling, outside the timed call.
 */
final class LatencySamples {
  private long[] samples = new long[1 << 16];
  private int size;
  private boolean sorted;

  void add(long nanos) {
    if (size == samples.length) {
      samples = Arrays.copyOf(samples, samples.length * 2);
    }
    samples[size++] = nanos;
    sorted = false;
  }

  int size() {
    return size;
  }

  /**
   * The nearest-rank percentile: the smallest sample with at least {@code percent}% of the samples
   * at or below it.
   *
   * @throws IllegalStateException if there are no samples
   */
  long percentile(double percent) {
    if (size == 0) {
      throw new IllegalStateException("no round trips were timed: make --seconds larger");
    }
    if (!sorted) {
      Arrays.sort(samples, 0, size);
      sorted = true;
    }
    // The epsilon keeps 99.9% of 100,000 at rank 99,900: in doubles it is 99,900.00000000001.
    int rank = (int) Math.ceil(percent / 100.0 * size - 1e-6);
    return samples[Math.clamp(rank - 1, 0, size - 1)];
  }

  double mean() {
    long sum = 0;
    for (int i = 0; i < size; i++) {
      sum += samples[i];
    }
    return size == 0 ? 0 : (double) sum / size;
  }
}
