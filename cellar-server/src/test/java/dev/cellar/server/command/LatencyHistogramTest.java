package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The histogram's buckets, percentiles and Redis's cumulative form, against sorted samples. */
class LatencyHistogramTest {

  @Test
  void everyValueFallsInABucketAtMostAThirtySecondWide() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 200_000; i++) {
      long v =
          Math.min(LatencyHistogram.MAX_NANOS, 1 + (long) Math.pow(2, random.nextDouble() * 30));
      int b = LatencyHistogram.bucket(v);
      assertTrue(b >= 0 && b < LatencyHistogram.BUCKETS, "bucket of " + v);
      long highest = LatencyHistogram.highest(b);
      long lowest = b == 0 ? 0 : LatencyHistogram.highest(b - 1) + 1;
      assertTrue(lowest <= v && v <= highest, v + " in [" + lowest + ", " + highest + "]");
      assertTrue(highest - lowest <= Math.max(0, lowest / 32), "width at " + v);
    }
    assertEquals(
        LatencyHistogram.bucket(LatencyHistogram.MAX_NANOS),
        LatencyHistogram.bucket(5e9 > 0 ? 5_000_000_000L : 0));
    assertEquals(1, LatencyHistogram.bucket(0));
  }

  @Test
  void percentilesAndTheCumulativeFormMatchTheSamples() {
    SplittableRandom random = new SplittableRandom(11);
    for (int round = 0; round < 50; round++) {
      LatencyHistogram h = new LatencyHistogram();
      int n = 1 + random.nextInt(5_000);
      long[] samples = new long[n];
      for (int i = 0; i < n; i++) {
        samples[i] = 1 + (long) Math.pow(2, random.nextDouble() * (10 + random.nextInt(20)));
        h.record(samples[i]);
      }
      Arrays.sort(samples);
      long[] counts = h.counts();
      assertEquals(n, LatencyHistogram.total(counts));
      for (double p : new double[] {0, 1, 50, 90, 99, 99.9, 100}) {
        long exact = samples[(int) Math.max(0, Math.ceil(p / 100 * n) - 1)];
        long got = LatencyHistogram.valueAt(counts, p);
        assertTrue(got >= exact && got <= exact + exact / 32 + 1, p + ": " + got + " for " + exact);
      }
      long[] pairs = LatencyHistogram.cumulative(counts);
      assertEquals(n, pairs[pairs.length - 1]);
      for (int i = 0; i < pairs.length; i += 2) {
        long micros = pairs[i];
        long upTo = pairs[i + 1];
        long found = -1;
        for (int k = 0; k <= 20 && found < 0; k++) {
          long e = (1024L << k) + (8L << k) - 1;
          found = e / 1000 == micros ? e : -1;
        }
        long edge = found;
        assertTrue(edge > 0, micros + " µs is not a power Redis names");
        long atMost = Arrays.stream(samples).filter(s -> s <= edge).count();
        // Samples within a bucket of the edge may fall either side of it.
        long below = Arrays.stream(samples).filter(s -> s < edge - edge / 16).count();
        assertTrue(upTo <= atMost && upTo >= below, micros + " µs: " + upTo);
      }
    }
  }
}
