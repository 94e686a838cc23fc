package dev.cellar.server.command;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One command's latencies, for {@code LATENCY HISTOGRAM} and {@code INFO latencystats}: Redis keeps
 * an HdrHistogram per command (1 ns to 1 s, two significant digits) and reports its cumulative
 * distribution in powers of two from 1 µs, and percentiles.
 *
 * <h2>Layout</h2>
 *
 * Log-linear buckets of nanoseconds: values below 64 each have a bucket of their own; above, each
 * power of two is cut into 32 buckets, so a bucket is at most 1/32 (3%) wide relative to its
 * values. Values are clamped to 1 ns .. 1 s as in Redis. 832 buckets.
 *
 * <p>Commands run on every event loop at once, so the counts are striped by thread (a stripe per
 * core, up to four): two loops running {@code SET} increment different cache lines, not one line
 * that bounces between their cores. A stripe is allocated on its first use, so a command never
 * called costs nothing but this object.
 */
final class LatencyHistogram {
  static final long MAX_NANOS = 1_000_000_000L;
  private static final int EXACT = 64;
  private static final int SUB_BITS = 5;
  private static final int SUB = 1 << SUB_BITS;

  /** Buckets: the exact ones, then 32 for each power of two from 2^6 to 2^29 (1 s < 2^30). */
  static final int BUCKETS = EXACT + (30 - 6) * SUB;

  private static final int STRIPES =
      Math.min(4, Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())));

  private final AtomicLongArray[] stripes = new AtomicLongArray[STRIPES];

  /** The bucket of {@code nanos}, clamped to 1 ns .. 1 s. */
  static int bucket(long nanos) {
    long v = Math.clamp(nanos, 1, MAX_NANOS);
    if (v < EXACT) {
      return (int) v;
    }
    int power = 63 - Long.numberOfLeadingZeros(v);
    return EXACT + (power - 6) * SUB + (int) ((v >>> (power - SUB_BITS)) & (SUB - 1));
  }

  /** The largest value that falls in bucket {@code b}. */
  static long highest(int b) {
    if (b < EXACT) {
      return b;
    }
    int power = 6 + (b - EXACT) / SUB;
    long sub = (b - EXACT) % SUB;
    long width = 1L << (power - SUB_BITS);
    return ((SUB + sub) * width) + width - 1;
  }

  void record(long nanos) {
    int stripe = (int) Thread.currentThread().threadId() & (STRIPES - 1);
    AtomicLongArray counts = stripes[stripe];
    if (counts == null) {
      counts = allocate(stripe);
    }
    counts.getAndIncrement(bucket(nanos));
  }

  private synchronized AtomicLongArray allocate(int stripe) {
    if (stripes[stripe] == null) {
      stripes[stripe] = new AtomicLongArray(BUCKETS);
    }
    return stripes[stripe];
  }

  /** The counts summed over the stripes, bucket by bucket (a copy: they move as it is read). */
  long[] counts() {
    long[] sum = new long[BUCKETS];
    for (AtomicLongArray s : stripes) {
      if (s != null) {
        for (int i = 0; i < BUCKETS; i++) {
          sum[i] += s.get(i);
        }
      }
    }
    return sum;
  }

  /** {@code CONFIG RESETSTAT}. */
  void reset() {
    for (AtomicLongArray s : stripes) {
      if (s != null) {
        for (int i = 0; i < BUCKETS; i++) {
          s.set(i, 0);
        }
      }
    }
  }

  static long total(long[] counts) {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    return total;
  }

  /**
   * The value at {@code percentile} (0 to 100) of {@code counts}, in nanoseconds: as
   * HdrHistogram's, the largest value of the bucket holding the sample of that rank (at least the
   * first sample).
   */
  static long valueAt(long[] counts, double percentile) {
    long total = total(counts);
    if (total == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(Math.min(percentile, 100.0) / 100.0 * total));
    long seen = 0;
    for (int b = 0; b < counts.length; b++) {
      seen += counts[b];
      if (seen >= rank) {
        return highest(b);
      }
    }
    return highest(counts.length - 1);
  }

  /**
   * Redis's cumulative distribution ({@code LATENCY HISTOGRAM}'s {@code histogram_usec}): at each
   * power of two from 1024 ns, the samples up to it, as pairs of microseconds and counts, only
   * where the count grew, until every sample is counted. The microseconds are those Redis's
   * HdrHistogram names the power by (its bucket's largest value, at two significant digits).
   */
  static long[] cumulative(long[] counts) {
    long total = total(counts);
    long[] pairs = new long[2 * 32];
    int n = 0;
    long previous = 0;
    int b = 0;
    long seen = 0;
    // By 2^20 µs (about 1.07 s) every sample is counted: they are clamped to 1 s.
    for (int k = 0; previous < total && k <= 20; k++) {
      long edge = (1024L << k) + (8L << k) - 1;
      while (b < counts.length && highest(b) <= edge) {
        seen += counts[b++];
      }
      if (k == 20) {
        seen = total;
      }
      if (seen > previous) {
        pairs[n++] = edge / 1000;
        pairs[n++] = seen;
      }
      previous = seen;
    }
    return java.util.Arrays.copyOf(pairs, n);
  }
}
