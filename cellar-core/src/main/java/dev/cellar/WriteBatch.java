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
  private byte[][] keys;
  private byte[][] values;
  private long[] expiries;
  private byte[] kinds;
  private int size;

  /** An empty batch. */
  public WriteBatch() {
    this(8);
  }

  /** An empty batch with room for {@code expectedSize} operations before it grows. */
  public WriteBatch(int expectedSize) {
    if (expectedSize < 0) {
      throw new IllegalArgumentException("expected size " + expectedSize + " is negative");
    }
    int room = Math.max(1, expectedSize);
    keys = new byte[room][];
    values = new byte[room][];
    expiries = new long[room];
    kinds = new byte[room];
  }

  /** {@link #kind} of a plain key's put or delete. */
  public static final int PLAIN = 0;

  /** {@link #kind} of a header's put ({@link #putHeader}); its delete is a plain delete. */
  public static final int HEADER = 1;

  /** {@link #kind} of an element's put or delete ({@link #putElement}, {@link #deleteElement}). */
  public static final int ELEMENT = 2;

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
    add(key, value, expireAtEpochMillis, PLAIN);
    return this;
  }

  /**
   * Puts a <em>header</em> under {@code key}: a value in the keyspace of plain keys, replaced,
   * deleted, counted, scanned and expired as a plain value is, that plain reads ({@link
   * Cellar#get}, {@link Cellar#read}) do not return; {@link Cellar#readHeader} does. What a
   * collection keeps under its name: the server's hashes, lists and sets are a header and elements.
   */
  public WriteBatch putHeader(byte[] key, byte[] value, long expireAtEpochMillis) {
    Objects.requireNonNull(value, "value");
    if (expireAtEpochMillis < 0) {
      throw new IllegalArgumentException("expiry " + expireAtEpochMillis + " is negative");
    }
    add(key, value, expireAtEpochMillis, HEADER);
    return this;
  }

  /**
   * Puts {@code value} under {@code key} in the keyspace of <em>elements</em>: keys apart from
   * plain ones (the same bytes name a different entry), never counted by {@link Cellar#size()},
   * never scanned by {@link Cellar#scanPage} nor drawn by {@link Cellar#randomKey()}, never
   * expiring; read with {@link Cellar#readElement}.
   */
  public WriteBatch putElement(byte[] key, byte[] value) {
    Objects.requireNonNull(value, "value");
    add(key, value, Cellar.NO_EXPIRY, ELEMENT);
    return this;
  }

  /** Deletes {@code key} from the keyspace of elements (nothing is written if it is absent). */
  public WriteBatch deleteElement(byte[] key) {
    add(key, null, Cellar.NO_EXPIRY, ELEMENT);
    return this;
  }

  /**
   * Deletes {@code key} (nothing is written for a key that is absent when the batch is applied).
   */
  public WriteBatch delete(byte[] key) {
    add(key, null, Cellar.NO_EXPIRY, PLAIN);
    return this;
  }

  private void add(byte[] key, byte[] value, long expiry, int kind) {
    Objects.requireNonNull(key, "key");
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      values = Arrays.copyOf(values, size * 2);
      expiries = Arrays.copyOf(expiries, size * 2);
      kinds = Arrays.copyOf(kinds, size * 2);
    }
    kinds[size] = (byte) kind;
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

  /** Operation {@code i}'s kind: {@link #PLAIN}, {@link #HEADER} or {@link #ELEMENT}. */
  public int kind(int i) {
    Objects.checkIndex(i, size);
    return kinds[i];
  }

  /** Operation {@code i}'s expiry (epoch millis, {@link Cellar#NO_EXPIRY} for none). */
  public long expiry(int i) {
    Objects.checkIndex(i, size);
    return expiries[i];
  }
}
