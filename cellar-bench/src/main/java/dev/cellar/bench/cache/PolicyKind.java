package dev.cellar.bench.cache;

import java.util.Locale;
import java.util.function.IntFunction;

/** The policies the benchmark compares, by the names its options and reports use. */
public enum PolicyKind {
  LRU("lru", LruPolicy::new),
  CLOCK("clock", ClockPolicy::new),
  S3_FIFO("s3-fifo", S3FifoPolicy::new),
  SIEVE("sieve", SievePolicy::new),
  RANDOM("random", capacity -> new RandomPolicy(capacity, 7));

  private final String id;
  private final IntFunction<CachePolicy> factory;

  PolicyKind(String id, IntFunction<CachePolicy> factory) {
    this.id = id;
    this.factory = factory;
  }

  public String id() {
    return id;
  }

  public CachePolicy create(int capacity) {
    return factory.apply(capacity);
  }

  /** The policy named {@code id} as in the reports ({@code lru}, {@code s3-fifo}, ...). */
  public static PolicyKind byId(String id) {
    for (PolicyKind p : values()) {
      if (p.id.equals(id.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown cache policy '" + id + "': use lru, clock, s3-fifo, sieve or random");
  }

  static int checkCapacity(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException(
          "cache capacity " + capacity + " entries: give at least 1");
    }
    return capacity;
  }
}
