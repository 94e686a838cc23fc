package dev.cellar.bench.embedded;

import java.util.List;

/**
 * The size of one run: {@code keys} keys of the form {@code user:<n>}, values of {@code valueBytes}
 * bytes, {@code ops} operations in each read and overwrite phase, and the seed of the random key
 * choices (each phase and thread derives its own stream from it).
 */
public record Workload(long keys, int valueBytes, long ops, long seed) {
  public static final long DEFAULT_KEYS = 15_000_000;
  public static final int DEFAULT_VALUE_BYTES = 60;
  public static final long DEFAULT_MAX_OPS = 5_000_000;

  /** The brief's workload seed, 003. */
  public static final long DEFAULT_SEED = 3;

  public Workload {
    if (keys < 1 || keys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "--keys " + keys + " outside [1, " + Integer.MAX_VALUE + "]");
    }
    if (valueBytes < 1) {
      throw new IllegalArgumentException("--value-size " + valueBytes + " < 1");
    }
    if (ops < 2) {
      throw new IllegalArgumentException("--ops " + ops + " < 2");
    }
  }

  /** Read and overwrite phases default to {@code min(5,000,000, keys)} operations. */
  public static long defaultOps(long keys) {
    return Math.max(2, Math.min(DEFAULT_MAX_OPS, keys));
  }

  /** The child JVM's arguments that carry this workload. */
  public List<String> toArguments() {
    return List.of(
        "--keys", Long.toString(keys),
        "--value-size", Integer.toString(valueBytes),
        "--ops", Long.toString(ops),
        "--seed", Long.toString(seed));
  }
}
