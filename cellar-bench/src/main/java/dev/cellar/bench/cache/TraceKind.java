package dev.cellar.bench.cache;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The request traces, each made from a seed so that every policy and every run sees the same one.
 * Popularity ranks map to keys through a seeded random permutation, so the hot keys are scattered
 * over the key space as hot pages are scattered over a store's segments, and a scan in key order
 * passes through keys of every popularity.
 */
public enum TraceKind {
  /** Zipf, alpha 0.8: mildly skewed. */
  ZIPF_0_8("zipf-0.8", 0.8, false, false),
  /** Zipf, alpha 0.99: the YCSB default skew. */
  ZIPF_0_99("zipf-0.99", 0.99, false, false),
  /** Zipf, alpha 1.2: a small hot set. */
  ZIPF_1_2("zipf-1.2", 1.2, false, false),
  /**
   * Zipf 0.99 with a scan in the middle: a compaction pass or a SCAN reading 30% of the key space
   * once, in key order. The scan's requests are added to the trace's length.
   */
  ZIPF_0_99_SCAN("zipf-0.99+scan", 0.99, true, false),
  /**
   * Zipf 0.99 whose hot set moves: every fifth of the trace the ranks are rotated by a fifth of the
   * key space, so the keys that were hot become cold and a fresh set becomes hot.
   */
  ZIPF_0_99_SHIFTING("zipf-0.99-shifting", 0.99, false, true);

  static final double SCAN_FRACTION = 0.3;
  static final int PHASES = 5;

  private final String id;
  private final double alpha;
  private final boolean scan;
  private final boolean shifting;

  TraceKind(String id, double alpha, boolean scan, boolean shifting) {
    this.id = id;
    this.alpha = alpha;
    this.scan = scan;
    this.shifting = shifting;
  }

  public String id() {
    return id;
  }

  double alpha() {
    return alpha;
  }

  /**
   * The trace over {@code keys} keys: {@code requests} Zipf draws, plus the scan for the scan
   * trace.
   */
  int[] generate(int keys, int requests, long seed) {
    SplittableRandom random = new SplittableRandom(seed ^ id.hashCode());
    int[] keyOfRank = permutation(keys, random.split());
    ZipfSampler zipf = new ZipfSampler(keys, alpha);
    int scanLength = scan ? (int) (keys * SCAN_FRACTION) : 0;
    int[] trace = new int[requests + scanLength];
    int scanAt = requests / 2;
    int phaseLength = Math.max(1, requests / PHASES);
    int rotation = keys / PHASES;
    int out = 0;
    for (int i = 0; i < requests; i++) {
      if (i == scanAt) {
        for (int k = 0; k < scanLength; k++) {
          trace[out++] = k;
        }
      }
      int rank = zipf.next(random);
      if (shifting) {
        rank = (int) ((rank + (long) rotation * Math.min(i / phaseLength, PHASES - 1)) % keys);
      }
      trace[out++] = keyOfRank[rank];
    }
    return trace;
  }

  /**
   * The requests, as {@code [from, to)} of the trace {@link #generate} makes, that tell most about
   * this trace besides its whole: for the scan trace the tenth of the trace right after the scan,
   * where a policy the scan flushed pays for it; empty for the others.
   */
  int[] window(int keys, int requests) {
    if (!scan) {
      return new int[] {0, 0};
    }
    int from = requests / 2 + (int) (keys * SCAN_FRACTION);
    return new int[] {from, from + requests / 10};
  }

  private static int[] permutation(int n, SplittableRandom random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  /** The trace named {@code id} as in the reports. */
  public static TraceKind byId(String id) {
    for (TraceKind t : values()) {
      if (t.id.equals(id.toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown trace '"
            + id
            + "': use zipf-0.8, zipf-0.99, zipf-1.2, zipf-0.99+scan or zipf-0.99-shifting");
  }
}
