package dev.cellar.compress;

import dev.cellar.Compression;
import java.security.SecureRandom;

/**
 * Gathers values of a store to train a dictionary on, and trains it. Values are taken whole (the
 * first {@link #MAX_SAMPLE_BYTES} of a longer one): a dictionary helps small values, whose frames
 * have no history of their own to match, and the trainer learns what they share.
 *
 * <p>The budget ({@link #MAX_SAMPLES} values, {@link #MAX_TOTAL_BYTES} bytes) keeps training under
 * a second of one core; a caller that sees more values than that offers every n-th.
 */
public final class DictionarySampler {
  public static final int MAX_SAMPLES = 10_000;
  public static final int MAX_TOTAL_BYTES = 4 << 20;
  static final int MAX_SAMPLE_BYTES = 16 << 10;

  /** Values shorter than this are not worth compressing, nor teaching a dictionary. */
  public static final int MIN_VALUE_BYTES = 16;

  /** Fewer values than this do not make a dictionary: the trainer would refuse or overfit. */
  static final int MIN_SAMPLES = 32;

  /** The smallest dictionary the trainer makes (its header and tables alone take hundreds). */
  static final int MIN_DICTIONARY_BYTES = 1 << 10;

  private static final SecureRandom IDS = new SecureRandom();

  private byte[] samples = new byte[64 << 10];
  private long[] sizes = new long[256];
  private int count;
  private int total;

  /** Offers {@code value[off, off + len)}; returns false once the budget is spent. */
  public boolean add(byte[] value, int off, int len) {
    if (full()) {
      return false;
    }
    if (len < MIN_VALUE_BYTES) {
      return true;
    }
    int n = Math.min(len, Math.min(MAX_SAMPLE_BYTES, MAX_TOTAL_BYTES - total));
    if (total + n > samples.length) {
      samples =
          java.util.Arrays.copyOf(
              samples, Math.min(MAX_TOTAL_BYTES, Math.max(total + n, 2 * samples.length)));
    }
    if (count == sizes.length) {
      sizes = java.util.Arrays.copyOf(sizes, 2 * sizes.length);
    }
    System.arraycopy(value, off, samples, total, n);
    sizes[count++] = n;
    total += n;
    return true;
  }

  public boolean full() {
    return count >= MAX_SAMPLES || total >= MAX_TOTAL_BYTES;
  }

  /** The values gathered so far. */
  public int count() {
    return count;
  }

  /**
   * A dictionary for {@code codec} trained on the values gathered, of the size {@link
   * ValueDictionary#trainedBytes} gives segments of {@code segmentBytes}, with a new random id;
   * with no dictionary bytes (values compressed on their own) when there are too few values, or the
   * trainer finds nothing to learn.
   */
  public ValueDictionary train(Compression codec, long segmentBytes) {
    byte[] bytes = null;
    int capacity = ValueDictionary.trainedBytes(codec, segmentBytes);
    if (count >= MIN_SAMPLES && capacity >= MIN_DICTIONARY_BYTES) {
      bytes = Zstd.train(samples, sizes, count, capacity);
    }
    long id;
    do {
      id = IDS.nextLong();
    } while (id == 0);
    return new ValueDictionary(id, codec, bytes == null ? new byte[0] : bytes, count);
  }
}
