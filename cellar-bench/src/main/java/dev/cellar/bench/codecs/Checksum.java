package dev.cellar.bench.codecs;

/**
 * Folds a price update's fields into one long. Both message forms fold the same values in the same
 * order, so equal messages have equal checksums, and a benchmark that consumes the checksum has
 * read every field.
 */
final class Checksum {
  private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

  private Checksum() {}

  static long of(
      long mnemonicBits,
      long marketId,
      long instrumentId,
      int quantity,
      long priceBits,
      long exchangeTimeNanos,
      long sendTimeNanos) {
    long h = mix(0, mnemonicBits);
    h = mix(h, marketId);
    h = mix(h, instrumentId);
    h = mix(h, quantity);
    h = mix(h, priceBits);
    h = mix(h, exchangeTimeNanos);
    return mix(h, sendTimeNanos);
  }

  private static long mix(long h, long value) {
    return Long.rotateLeft((h ^ value) * MULTIPLIER, 29);
  }
}
