package dev.cellar.bench.soak;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The straight line fitted by least squares through one series of samples: its slope, and how much
 * it rises over the span of the samples. Fitting, rather than comparing the last reading with the
 * first, keeps one sample taken mid-compaction or just before a collection from deciding the
 * verdict.
 *
 * @param points samples fitted
 * @param start fitted value at the first sample's time, bytes
 * @param bytesPerSecond slope
 * @param growth fitted rise from the first sample to the last, bytes (negative when it falls)
 */
record Trend(int points, double start, double bytesPerSecond, double growth) {

  /**
   * Fits the samples for which {@code value} is not negative; fewer than two give a flat line of no
   * points.
   */
  static Trend fit(List<Sample> samples, ToLongFunction<Sample> value) {
    List<Sample> present = samples.stream().filter(s -> value.applyAsLong(s) >= 0).toList();
    if (present.size() < 2) {
      return new Trend(
          present.size(), present.isEmpty() ? 0 : value.applyAsLong(present.getFirst()), 0, 0);
    }
    double n = present.size();
    double meanX = present.stream().mapToDouble(Sample::seconds).sum() / n;
    double meanY = present.stream().mapToDouble(value::applyAsLong).sum() / n;
    double sxy = 0;
    double sxx = 0;
    for (Sample s : present) {
      double dx = s.seconds() - meanX;
      sxy += dx * (value.applyAsLong(s) - meanY);
      sxx += dx * dx;
    }
    double slope = sxx == 0 ? 0 : sxy / sxx;
    double first = present.getFirst().seconds();
    double span = present.getLast().seconds() - first;
    return new Trend(present.size(), meanY + slope * (first - meanX), slope, slope * span);
  }

  /**
   * The Theil-Sen line through the samples for which {@code value} is not negative: its slope is
   * the median of the slopes between every pair of them, its level the median of what is left. A
   * few readings far off the others (a collection that left the heap's capacity up, a request still
   * in flight) do not tilt it, as they tilt least squares; a steady rise moves every pair's slope,
   * so it shows in full.
   */
  static Trend robust(List<Sample> samples, ToLongFunction<Sample> value) {
    List<Sample> present = samples.stream().filter(s -> value.applyAsLong(s) >= 0).toList();
    if (present.size() < 2) {
      return fit(present, value);
    }
    int n = present.size();
    double[] slopes = new double[n * (n - 1) / 2];
    int k = 0;
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        double dx = present.get(j).seconds() - present.get(i).seconds();
        double dy = value.applyAsLong(present.get(j)) - (double) value.applyAsLong(present.get(i));
        slopes[k++] = dx == 0 ? 0 : dy / dx;
      }
    }
    double slope = median(slopes);
    double first = present.getFirst().seconds();
    double[] levels = new double[n];
    for (int i = 0; i < n; i++) {
      levels[i] = value.applyAsLong(present.get(i)) - slope * (present.get(i).seconds() - first);
    }
    double span = present.getLast().seconds() - first;
    return new Trend(n, median(levels), slope, slope * span);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int m = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  }

  /** The slope in MiB per ten minutes, the unit the report uses. */
  double mibPerTenMinutes() {
    return bytesPerSecond * 600 / (1 << 20);
  }
}
