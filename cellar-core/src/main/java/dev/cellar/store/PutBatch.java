package dev.cellar.store;

import dev.cellar.Cellar;
import dev.cellar.index.KeyHasher;
import dev.cellar.log.PutRecords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The puts of one {@link Cellar#putAll} call in one shape, whichever form the caller used: item
 * {@code k} stores the {@code valueLengths[k]} bytes of its value from {@code valueOffsets[k]}
 * under the key of {@code keyLengths[k]} bytes at {@code keyOffsets[k]} of {@link #keys}, expiring
 * at {@code expiries[k]}. Checked for shape (nulls, ranges inside their segments) when made; the
 * limits are the store's to check.
 *
 * <p>No segment per key or value: heap keys are copied into one array, which one segment wraps for
 * hashing and the index, and heap values stay the caller's arrays, copied straight into their
 * records ({@link PutRecords}). Wrapping each key and value in a heap segment cost a tenth of a
 * batched load in allocations.
 */
final class PutBatch implements PutRecords {
  final int count;

  /** Every key: the caller's segment, or a segment over {@link #keyBytes}. */
  final MemorySegment keys;

  /** The heap keys, one after another; null when the caller gave a segment. */
  private final byte[] keyBytes;

  final long[] keyOffsets;
  final long[] keyLengths;

  /** The caller's segment of values; null when the caller gave arrays. */
  private final MemorySegment values;

  /** The caller's value arrays; null when the caller gave a segment. */
  private final byte[][] valueArrays;

  final long[] valueOffsets;
  final long[] valueLengths;
  final long[] expiries;

  /** Room for one window of {@link Store#putAll}: its items in shard order, their locations. */
  final int[] items;

  final long[] locations;
  final Shard[] locked;
  final long[] stamps;

  private PutBatch(
      int count, MemorySegment keys, byte[] keyBytes, MemorySegment values, byte[][] valueArrays) {
    this.count = count;
    this.keys = keys;
    this.keyBytes = keyBytes;
    this.values = values;
    this.valueArrays = valueArrays;
    this.keyOffsets = new long[count];
    this.keyLengths = new long[count];
    this.valueOffsets = new long[count];
    this.valueLengths = new long[count];
    this.expiries = new long[count];
    int window = Math.min(count, Keyspace.BATCH_WINDOW);
    this.items = new int[window];
    this.locations = new long[window];
    this.locked = new Shard[window];
    this.stamps = new long[window];
  }

  static PutBatch of(byte[][] keys, byte[][] values, long[] expiries) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(expiries, "expiries");
    if (keys.length != values.length || keys.length != expiries.length) {
      throw new IllegalArgumentException(
          "putAll needs as many values and expiries as keys: "
              + keys.length
              + " keys, "
              + values.length
              + " values, "
              + expiries.length
              + " expiries");
    }
    // A copy of the array of values, so that what was checked is what is written.
    byte[][] valueArrays = values.clone();
    long keyTotal = 0;
    for (int k = 0; k < keys.length; k++) {
      keyTotal += Objects.requireNonNull(keys[k], "key").length;
      Objects.requireNonNull(valueArrays[k], "value");
    }
    if (keyTotal > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "putAll's keys total " + keyTotal + " bytes; split the batch below 2 GiB of keys");
    }
    byte[] keyBytes = new byte[(int) keyTotal];
    PutBatch batch =
        new PutBatch(keys.length, MemorySegment.ofArray(keyBytes), keyBytes, null, valueArrays);
    int at = 0;
    for (int k = 0; k < keys.length; k++) {
      byte[] key = keys[k];
      System.arraycopy(key, 0, keyBytes, at, key.length);
      batch.keyOffsets[k] = at;
      batch.keyLengths[k] = key.length;
      at += key.length;
      batch.valueLengths[k] = valueArrays[k].length;
      batch.expiries[k] = expiries[k];
    }
    return batch;
  }

  static PutBatch of(
      MemorySegment source,
      long[] keyOffsets,
      long[] keyLengths,
      long[] valueOffsets,
      long[] valueLengths,
      int count,
      long expiry) {
    Objects.requireNonNull(source, "source");
    int shortest =
        Math.min(
            Math.min(keyOffsets.length, keyLengths.length),
            Math.min(valueOffsets.length, valueLengths.length));
    Objects.checkFromIndexSize(0, count, shortest);
    PutBatch batch = new PutBatch(count, source, null, source, null);
    System.arraycopy(keyOffsets, 0, batch.keyOffsets, 0, count);
    System.arraycopy(keyLengths, 0, batch.keyLengths, 0, count);
    System.arraycopy(valueOffsets, 0, batch.valueOffsets, 0, count);
    System.arraycopy(valueLengths, 0, batch.valueLengths, 0, count);
    // Checked on the copies: the caller's arrays may change under us.
    for (int k = 0; k < count; k++) {
      Objects.checkFromIndexSize(batch.keyOffsets[k], batch.keyLengths[k], source.byteSize());
      Objects.checkFromIndexSize(batch.valueOffsets[k], batch.valueLengths[k], source.byteSize());
    }
    java.util.Arrays.fill(batch.expiries, expiry);
    return batch;
  }

  /** Item {@code k}'s key hash: heap keys are hashed from their array, cheaper than a segment. */
  long hash(KeyHasher hasher, int k) {
    return keyBytes != null
        ? hasher.hash(keyBytes, (int) keyOffsets[k], (int) keyLengths[k])
        : hasher.hash(keys, keyOffsets[k], keyLengths[k]);
  }

  /** Item {@code k}'s value as a segment, for the rare paths that take one. */
  MemorySegment valueSegment(int k) {
    return values != null ? values : MemorySegment.ofArray(valueArrays[k]);
  }

  @Override
  public long keyLength(int item) {
    return keyLengths[item];
  }

  @Override
  public long valueLength(int item) {
    return valueLengths[item];
  }

  @Override
  public long expiry(int item) {
    return expiries[item];
  }

  @Override
  public void copyKey(int item, byte[] out, int at) {
    if (keyBytes != null) {
      System.arraycopy(keyBytes, (int) keyOffsets[item], out, at, (int) keyLengths[item]);
    } else {
      MemorySegment.copy(
          keys, ValueLayout.JAVA_BYTE, keyOffsets[item], out, at, (int) keyLengths[item]);
    }
  }

  @Override
  public void copyValue(int item, byte[] out, int at) {
    if (valueArrays != null) {
      System.arraycopy(valueArrays[item], 0, out, at, (int) valueLengths[item]);
    } else {
      MemorySegment.copy(
          values, ValueLayout.JAVA_BYTE, valueOffsets[item], out, at, (int) valueLengths[item]);
    }
  }
}
