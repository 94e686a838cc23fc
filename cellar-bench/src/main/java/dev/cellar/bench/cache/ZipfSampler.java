package dev.cellar.bench.cache;

import java.util.SplittableRandom;

/**
 * Popularity ranks 0 (the most popular) to n-1 with P(rank r) proportional to 1/(r+1)^alpha, drawn
 * by inverting the cumulative distribution with a binary search over a table of n doubles. Exact
 * for every alpha (including 1 and above), which the usual closed-form approximations are not, at
 * the price of 8 bytes per key and about 20 probes per draw, which the trace generation can afford.
 */
final class ZipfSampler {
  private final double[] cumulative;

  ZipfSampler(int n, double alpha) {
    if (n < 1 || !(alpha > 0)) {
      throw new IllegalArgumentException(
          "Zipf over " + n + " keys, alpha " + alpha + ": give at least 1 key and alpha > 0");
    }
    cumulative = new double[n];
    double sum = 0;
    for (int r = 0; r < n; r++) {
      sum += Math.pow(r + 1, -alpha);
      cumulative[r] = sum;
    }
  }

  int next(SplittableRandom random) {
    double u = random.nextDouble() * cumulative[cumulative.length - 1];
    int low = 0;
    int high = cumulative.length - 1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (cumulative[mid] <= u) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** The probability mass of the {@code k} most popular ranks. */
  double topMass(int k) {
    return k <= 0
        ? 0
        : cumulative[Math.min(k, cumulative.length) - 1] / cumulative[cumulative.length - 1];
  }
}
