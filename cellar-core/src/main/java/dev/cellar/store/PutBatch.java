package dev.cellar.store;

import dev.cellar.Cellar;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The puts of one {@link Cellar#putAll} call in one shape, whichever form the caller used: item
 * {@code k} stores the {@code valueLengths[k]} bytes of {@code values[k]} from {@code
 * valueOffsets[k]} under the key likewise taken from {@code keys[k]}, expiring at {@code
 * expiries[k]}. Checked for shape (nulls, ranges inside their segments) when made; the limits are
 * the store's to check.
 */
final class PutBatch {
  final int count;
  final MemorySegment[] keys;
  final long[] keyOffsets;
  final long[] keyLengths;
  final MemorySegment[] values;
  final long[] valueOffsets;
  final long[] valueLengths;
  final long[] expiries;

  private PutBatch(int count) {
    this.count = count;
    this.keys = new MemorySegment[count];
    this.values = new MemorySegment[count];
    this.keyOffsets = new long[count];
    this.keyLengths = new long[count];
    this.valueOffsets = new long[count];
    this.valueLengths = new long[count];
    this.expiries = new long[count];
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
    PutBatch batch = new PutBatch(keys.length);
    for (int k = 0; k < keys.length; k++) {
      batch.keys[k] = MemorySegment.ofArray(Objects.requireNonNull(keys[k], "key"));
      batch.keyLengths[k] = keys[k].length;
      batch.values[k] = MemorySegment.ofArray(Objects.requireNonNull(values[k], "value"));
      batch.valueLengths[k] = values[k].length;
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
    PutBatch batch = new PutBatch(count);
    for (int k = 0; k < count; k++) {
      Objects.checkFromIndexSize(keyOffsets[k], keyLengths[k], source.byteSize());
      Objects.checkFromIndexSize(valueOffsets[k], valueLengths[k], source.byteSize());
      batch.keys[k] = source;
      batch.values[k] = source;
    }
    System.arraycopy(keyOffsets, 0, batch.keyOffsets, 0, count);
    System.arraycopy(keyLengths, 0, batch.keyLengths, 0, count);
    System.arraycopy(valueOffsets, 0, batch.valueOffsets, 0, count);
    System.arraycopy(valueLengths, 0, batch.valueLengths, 0, count);
    java.util.Arrays.fill(batch.expiries, expiry);
    return batch;
  }
}
