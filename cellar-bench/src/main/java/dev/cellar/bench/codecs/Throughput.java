package dev.cellar.bench.codecs;

import java.util.Arrays;

/** Operations per second measured in each iteration of one approach and operation. */
record Throughput(double[] perIteration) {
  Throughput {
    if (perIteration.length == 0) {
      throw new IllegalArgumentException("a throughput needs at least one iteration");
    }
    perIteration = perIteration.clone();
  }

  /** The headline figure: the median resists the odd iteration a noisy machine spoils. */
  double median() {
    double[] sorted = perIteration.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  double min() {
    return Arrays.stream(perIteration).min().orElseThrow();
  }

  double max() {
    return Arrays.stream(perIteration).max().orElseThrow();
  }

  /** Half the range between iterations, as a fraction of the median. */
  double spread() {
    return (max() - min()) / 2 / median();
  }
}
