package dev.cellar.bench.workload;

import java.nio.charset.StandardCharsets;

/**
 * The benchmark's keys: {@code user:<n>} for the {@code n} in {@code [0, keys)} that exist, and
 * {@code miss:<n>} for lookups that must miss. Both are ASCII, so their UTF-8 bytes are the
 * characters.
 *
 * <p>Keys are encoded on demand into a fresh array rather than kept in a table: a table of 15
 * million arrays would sit on the heap of every store's JVM and blur the heap and GC numbers of the
 * off-heap stores. Encoding costs a few nanoseconds, the same for every store.
 */
public final class KeySpace {
  private static final byte[] HIT_PREFIX = "user:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MISS_PREFIX = "miss:".getBytes(StandardCharsets.US_ASCII);

  private final long keys;

  public KeySpace(long keys) {
    if (keys < 1) {
      throw new IllegalArgumentException("key count " + keys + " < 1");
    }
    this.keys = keys;
  }

  public long keys() {
    return keys;
  }

  /** The existing key number {@code n}. */
  public byte[] key(long n) {
    return encode(HIT_PREFIX, n);
  }

  /** A key that is never stored. */
  public byte[] missKey(long n) {
    return encode(MISS_PREFIX, n);
  }

  /** Mean length in bytes of the existing keys, for stores that size their tables by it. */
  public double averageKeyBytes() {
    long totalDigits = 0;
    long lowest = 0;
    for (int digits = 1; lowest < keys; digits++) {
      long highest = Math.min(keys, lowest == 0 ? 10 : lowest * 10);
      totalDigits += (highest - lowest) * digits;
      lowest = highest;
    }
    return HIT_PREFIX.length + (double) totalDigits / keys;
  }

  /** Length in bytes of the longest existing key. */
  public int maxKeyBytes() {
    return HIT_PREFIX.length + digits(keys - 1);
  }

  static byte[] encode(byte[] prefix, long n) {
    if (n < 0) {
      throw new IllegalArgumentException("key number " + n + " < 0");
    }
    byte[] out = new byte[prefix.length + digits(n)];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    long rest = n;
    for (int i = out.length - 1; i >= prefix.length; i--) {
      out[i] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    return out;
  }

  static int digits(long n) {
    int digits = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      digits++;
    }
    return digits;
  }
}
