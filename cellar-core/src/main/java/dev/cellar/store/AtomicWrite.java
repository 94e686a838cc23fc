package dev.cellar.store;

import dev.cellar.WriteBatch;
import dev.cellar.index.KeyHasher;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.UnitRecords;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One {@link dev.cellar.Cellar#write(WriteBatch)} call's operations, reduced to what is written:
 * each key once, with its last operation, in ascending shard order (the order its shards' write
 * locks are taken in); then, under those locks, the records the unit holds ({@link #plan}), which
 * is what {@link dev.cellar.log.LogWriter#appendUnit} reads.
 *
 * <p>The reduction is a map on the heap, sized by the batch, never by the store: batches are what a
 * transaction writes.
 */
final class AtomicWrite implements UnitRecords {
  /** The distinct keys, in shard order, with their last operation. */
  final MemorySegment[] keys;

  private final byte[][] keyBytes;

  final byte[][] values;
  final long[] expiries;
  final int[] kinds;
  final long[] hashes;
  final int count;

  /** Which operations become records, in order ({@link #plan}), and their record types. */
  private final int[] records;

  private final int[] types;
  private int recordCount;

  /** Where each record went, by record. */
  final long[] locations;

  private AtomicWrite(int count) {
    this.count = count;
    this.keys = new MemorySegment[count];
    this.keyBytes = new byte[count][];
    this.values = new byte[count][];
    this.expiries = new long[count];
    this.kinds = new int[count];
    this.hashes = new long[count];
    this.records = new int[count];
    this.types = new int[count];
    this.locations = new long[count];
  }

  /** Batches up to this size find repeated keys by comparing them all, with no map. */
  private static final int SMALL = 16;

  static AtomicWrite of(WriteBatch batch, KeyHasher hasher, Keyspace keyspace) {
    Integer[] order = lastOperations(batch);
    long[] hashOf = new long[batch.size()];
    for (int i : order) {
      long hash = hasher.hash(batch.key(i));
      hashOf[i] = batch.kind(i) == WriteBatch.ELEMENT ? KeyHasher.element(hash) : hash;
    }
    // Shard order first, batch order second: deterministic, and the locks go in ascending order.
    java.util.Comparator<Integer> byShard =
        (a, b) -> {
          int c = Integer.compare(keyspace.shardIndex(hashOf[a]), keyspace.shardIndex(hashOf[b]));
          return c != 0 ? c : Integer.compare(a, b);
        };
    if (order.length <= SMALL) {
      // A command's unit is a few records: an insertion sort, without the merge sort's set-up.
      for (int i = 1; i < order.length; i++) {
        Integer x = order[i];
        int j = i - 1;
        while (j >= 0 && byShard.compare(order[j], x) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = x;
      }
    } else {
      Arrays.sort(order, byShard);
    }
    AtomicWrite w = new AtomicWrite(order.length);
    for (int j = 0; j < order.length; j++) {
      int i = order[j];
      w.keyBytes[j] = batch.key(i);
      w.keys[j] = MemorySegment.ofArray(batch.key(i));
      w.values[j] = batch.value(i);
      w.expiries[j] = batch.expiry(i);
      w.kinds[j] = batch.kind(i);
      w.hashes[j] = hashOf[i];
    }
    return w;
  }

  /** The index of each key's last operation in {@code batch}. */
  private static Integer[] lastOperations(WriteBatch batch) {
    int n = batch.size();
    if (n <= SMALL) {
      Integer[] kept = new Integer[n];
      int count = 0;
      for (int i = 0; i < n; i++) {
        boolean later = false;
        for (int j = i + 1; j < n && !later; j++) {
          later =
              sameSpace(batch.kind(i), batch.kind(j)) && Arrays.equals(batch.key(i), batch.key(j));
        }
        if (!later) {
          kept[count++] = i;
        }
      }
      return Arrays.copyOf(kept, count);
    }
    Map<ByteBuffer, Integer> plain = new HashMap<>();
    Map<ByteBuffer, Integer> elements = new HashMap<>();
    for (int i = 0; i < n; i++) {
      (batch.kind(i) == WriteBatch.ELEMENT ? elements : plain)
          .put(ByteBuffer.wrap(batch.key(i)), i);
    }
    Integer[] kept = new Integer[plain.size() + elements.size()];
    int at = 0;
    for (Integer i : plain.values()) {
      kept[at++] = i;
    }
    for (Integer i : elements.values()) {
      kept[at++] = i;
    }
    return kept;
  }

  /** Whether operations of these kinds name the same key when their bytes are equal. */
  private static boolean sameSpace(int a, int b) {
    return (a == WriteBatch.ELEMENT) == (b == WriteBatch.ELEMENT);
  }

  /** Starts the plan of records over (each attempt under the locks plans anew). */
  void clearPlan() {
    recordCount = 0;
  }

  /** Adds operation {@code op} to the unit as a record of {@code type}. */
  void plan(int op, int type) {
    records[recordCount] = op;
    types[recordCount] = type;
    recordCount++;
  }

  /** Records planned. */
  int records() {
    return recordCount;
  }

  /** The operation record {@code r} writes. */
  int op(int r) {
    return records[r];
  }

  @Override
  public int type(int item) {
    return types[item];
  }

  @Override
  public long keyLength(int item) {
    return keys[records[item]].byteSize();
  }

  @Override
  public long valueLength(int item) {
    return RecordDescriptor.isDelete(types[item]) ? 0 : values[records[item]].length;
  }

  @Override
  public long expiry(int item) {
    return RecordDescriptor.isDelete(types[item]) ? 0 : expiries[records[item]];
  }

  @Override
  public void copyKey(int item, byte[] out, int at) {
    byte[] key = keyBytes[records[item]];
    System.arraycopy(key, 0, out, at, key.length);
  }

  @Override
  public void copyValue(int item, byte[] out, int at) {
    if (!RecordDescriptor.isDelete(types[item])) {
      byte[] value = values[records[item]];
      System.arraycopy(value, 0, out, at, value.length);
    }
  }
}
