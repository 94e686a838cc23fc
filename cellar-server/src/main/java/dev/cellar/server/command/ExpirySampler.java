package dev.cellar.server.command;

import dev.cellar.Cellar;

/**
 * The keyspace line's {@code expires} and {@code avg_ttl} ({@code db0:keys=N,expires=M,avg_ttl=T}),
 * estimated by sampling, because the engine keeps no count of keys with an expiry. Once a second,
 * {@link #SAMPLE} random keys are drawn and their expiries read; the share of the last {@link
 * #WINDOW} draws that have one, times the key count, is {@code expires}, and the mean time left of
 * those is {@code avg_ttl}. Redis's {@code avg_ttl} is itself an estimate from sampled keys; its
 * {@code expires} is exact, so here it is exact only at the ends (no key or every key with a TTL)
 * and otherwise within a few percent of the key count.
 *
 * <p>Concurrency: {@link #sample} runs on the event loop that samples the server's rates; the
 * results are published through volatile fields.
 */
final class ExpirySampler {
  static final int SAMPLE = 32;
  static final int WINDOW = 16 * SAMPLE;

  private final java.util.function.Supplier<Cellar> store;
  private final boolean[] withExpiry = new boolean[WINDOW];
  private final long[] ttlMillis = new long[WINDOW];
  private int next;
  private int filled;
  private volatile double share;
  private volatile long averageTtl;

  /** Samples whatever store {@code store} gives when called (the current database's). */
  ExpirySampler(java.util.function.Supplier<Cellar> store) {
    this.store = store;
  }

  void sample() {
    Cellar store = this.store.get();
    long now = System.currentTimeMillis();
    for (int i = 0; i < SAMPLE; i++) {
      byte[] key = store.randomKey();
      if (key == null) {
        break; // empty, or nearly every key expired
      }
      long expiry = store.expiryOf(key);
      if (expiry == Cellar.ABSENT) {
        continue; // expired or deleted since it was drawn
      }
      withExpiry[next] = expiry != Cellar.NO_EXPIRY;
      ttlMillis[next] = expiry == Cellar.NO_EXPIRY ? 0 : Math.max(0, expiry - now);
      next = (next + 1) % WINDOW;
      filled = Math.min(WINDOW, filled + 1);
    }
    publish();
  }

  private void publish() {
    int expiring = 0;
    long ttlSum = 0;
    for (int i = 0; i < filled; i++) {
      if (withExpiry[i]) {
        expiring++;
        ttlSum += ttlMillis[i];
      }
    }
    share = filled == 0 ? 0 : (double) expiring / filled;
    averageTtl = expiring == 0 ? 0 : ttlSum / expiring;
  }

  /** Estimated keys with an expiry, of {@code keys}. */
  long expires(long keys) {
    return Math.round(share * keys);
  }

  /** Mean milliseconds left of the sampled keys with an expiry. */
  long averageTtlMillis() {
    return averageTtl;
  }
}
