package dev.cellar;

import java.util.Arrays;
import java.util.Objects;

/**
 * Puts and deletes that {@link Cellar#write(WriteBatch)} applies as one atomic unit: after a crash
 * the store holds all of them or none, and no reader sees some before the others. RocksDB's {@code
 * WriteBatch} in spirit.
 *
 * <p>Operations keep their order: a key written twice ends with its last operation. The batch holds
 * references to the arrays it is given (not copies) until it is written; it is not thread-safe and
 * may be {@link #clear() cleared} and reused.
 */
public final class WriteBatch {
  private byte[][] keys = new byte[8][];
  private byte[][] values = new byte[8][];
  private long[] expiries = new long[8];
  private int size;

  /** Puts {@code value} under {@code key}, with no expiry. */
  public WriteBatch put(byte[] key, byte[] value) {
    return put(key, value, Cellar.NO_EXPIRY);
  }

  /**
   * Puts {@code value} under {@code key}, expiring at {@code expireAtEpochMillis} ({@link
   * Cellar#NO_EXPIRY} for never; a time already past deletes the key, as {@link
   * Cellar#putWithExpiry} does).
   */
  public WriteBatch put(byte[] key, byte[] value, long expireAtEpochMillis) {
    Objects.requireNonNull(value, "value");
    if (expireAtEpochMillis < 0) {
      throw new IllegalArgumentException("expiry " + expireAtEpochMillis + " is negative");
    }
    add(key, value, expireAtEpochMillis);
    return this;
  }

  /**
   * Deletes {@code key} (nothing is written for a key that is absent when the batch is applied).
   */
  public WriteBatch delete(byte[] key) {
    add(key, null, Cellar.NO_EXPIRY);
    return this;
  }

  private void add(byte[] key, byte[] value, long expiry) {
    Objects.requireNonNull(key, "key");
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      values = Arrays.copyOf(values, size * 2);
      expiries = Arrays.copyOf(expiries, size * 2);
    }
    keys[size] = key;
    values[size] = value;
    expiries[size] = expiry;
    size++;
  }

  /** Operations added so far. */
  public int size() {
    return size;
  }

  /** Whether no operation was added. */
  public boolean isEmpty() {
    return size == 0;
  }

  /** Forgets every operation, so the batch can be reused. */
  public void clear() {
    Arrays.fill(keys, 0, size, null);
    Arrays.fill(values, 0, size, null);
    size = 0;
  }

  /** Operation {@code i}'s key. */
  public byte[] key(int i) {
    Objects.checkIndex(i, size);
    return keys[i];
  }

  /** Operation {@code i}'s value, or null if it is a delete. */
  public byte[] value(int i) {
    Objects.checkIndex(i, size);
    return values[i];
  }

  /** Operation {@code i}'s expiry (epoch millis, {@link Cellar#NO_EXPIRY} for none). */
  public long expiry(int i) {
    Objects.checkIndex(i, size);
    return expiries[i];
  }
}
