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
 * <p>The reduction is sized by the batch, never by the store: batches are what a transaction or one
 * collection command writes. Every collection write passes here, one unit of a few records per
 * command, so a thread keeps one instance and refills it ({@link #of}, {@link #release}): the order
 * is kept in primitive arrays, and the keys are copied into one array with one segment over it,
 * which the index reads for hashing and comparison. Made afresh for each write, these arrays and a
 * segment per key were some 700 bytes of garbage a push. An instance grown by a large unit is not
 * kept, so a thread holds at most {@link #KEEP_KEY_BYTES} of keys and {@link #KEEP_COUNT}
 * operations' arrays.
 */
final class AtomicWrite implements UnitRecords {
  /** A thread's instance, refilled by each of its writes. */
  private static final ThreadLocal<AtomicWrite> REUSED = ThreadLocal.withInitial(AtomicWrite::new);

  /** Largest unit, in operations and in key bytes, whose instance a thread keeps. */
  private static final int KEEP_COUNT = 256;

  private static final int KEEP_KEY_BYTES = 16 << 10;

  /** Whether a write on this thread is using the instance (a nested write makes its own). */
  private boolean inUse;

  /** The distinct keys, in shard order, one after another; {@link #keySource} is over it. */
  private byte[] keyData = new byte[256];

  /** A segment over {@link #keyData}: key {@code j} is at {@link #keyOffsets}[j]. */
  MemorySegment keySource = MemorySegment.ofArray(keyData);

  int[] keyOffsets;
  int[] keyLengths;

  byte[][] values;
  long[] expiries;
  int[] kinds;
  long[] hashes;
  int count;

  /** Which operations become records, in order ({@link #plan}), and their record types. */
  private int[] records;

  private int[] types;
  private int recordCount;

  /** Where each record went, by record. */
  long[] locations;

  /** The write locks the unit holds, in the order taken ({@code Store.applyLocked}). */
  Shard[] locked;

  long[] stamps;

  /** Scratch of {@link #of}: the operations kept, their sort keys and their hashes. */
  private int[] order;

  private long[] sorted;
  private long[] hashOf;

  private AtomicWrite() {
    room(8);
  }

  private void room(int n) {
    keyOffsets = new int[n];
    keyLengths = new int[n];
    values = new byte[n][];
    expiries = new long[n];
    kinds = new int[n];
    hashes = new long[n];
    records = new int[n];
    types = new int[n];
    locations = new long[n];
    locked = new Shard[n];
    stamps = new long[n];
    order = new int[n];
    sorted = new long[n];
    hashOf = new long[n];
  }

  /** Batches up to this size find repeated keys by comparing them all, with no map. */
  private static final int SMALL = 16;

  /** {@code batch} reduced; hand it back with {@link #release} when the write is done. */
  static AtomicWrite of(WriteBatch batch, KeyHasher hasher, Keyspace keyspace) {
    AtomicWrite w = REUSED.get();
    if (w.inUse) {
      w = new AtomicWrite();
    }
    w.inUse = true;
    w.fill(batch, hasher, keyspace);
    return w;
  }

  /** Drops the unit's references to the caller's arrays, and keeps the instance if small. */
  void release() {
    Arrays.fill(values, 0, count, null);
    Arrays.fill(locked, 0, count, null);
    inUse = false;
    if (keyOffsets.length > KEEP_COUNT || keyData.length > KEEP_KEY_BYTES) {
      REUSED.remove();
    }
  }

  private void fill(WriteBatch batch, KeyHasher hasher, Keyspace keyspace) {
    if (batch.size() > keyOffsets.length) {
      room(Math.max(batch.size(), keyOffsets.length * 2));
    }
    int n = lastOperations(batch, order);
    // Shard order first, batch order second: deterministic, and the locks go in ascending order.
    // Each operation is one long, shard above index, so a plain sort of longs orders them.
    int keyBytes = 0;
    for (int j = 0; j < n; j++) {
      int i = order[j];
      long hash = hasher.hash(batch.key(i));
      hash = batch.kind(i) == WriteBatch.ELEMENT ? KeyHasher.element(hash) : hash;
      hashOf[j] = hash;
      sorted[j] = (long) keyspace.shardIndex(hash) << 32 | j;
      keyBytes += batch.key(i).length;
    }
    if (n <= SMALL) {
      for (int i = 1; i < n; i++) {
        long x = sorted[i];
        int j = i - 1;
        while (j >= 0 && sorted[j] > x) {
          sorted[j + 1] = sorted[j];
          j--;
        }
        sorted[j + 1] = x;
      }
    } else {
      Arrays.sort(sorted, 0, n);
    }
    if (keyBytes > keyData.length) {
      keyData = new byte[Math.max(keyBytes, keyData.length * 2)];
      keySource = MemorySegment.ofArray(keyData);
    }
    count = n;
    recordCount = 0;
    int at = 0;
    for (int j = 0; j < n; j++) {
      int k = (int) sorted[j];
      int i = order[k];
      byte[] key = batch.key(i);
      System.arraycopy(key, 0, keyData, at, key.length);
      keyOffsets[j] = at;
      keyLengths[j] = key.length;
      at += key.length;
      values[j] = batch.value(i);
      expiries[j] = batch.expiry(i);
      kinds[j] = batch.kind(i);
      hashes[j] = hashOf[k];
    }
  }

  /**
   * Puts the index of each key's last operation in {@code batch} into {@code kept}, in batch order,
   * and returns how many there are.
   */
  private static int lastOperations(WriteBatch batch, int[] kept) {
    int n = batch.size();
    if (n <= SMALL) {
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
      return count;
    }
    Map<ByteBuffer, Integer> plain = new HashMap<>();
    Map<ByteBuffer, Integer> elements = new HashMap<>();
    for (int i = 0; i < n; i++) {
      (batch.kind(i) == WriteBatch.ELEMENT ? elements : plain)
          .put(ByteBuffer.wrap(batch.key(i)), i);
    }
    int at = 0;
    for (int i : plain.values()) {
      kept[at++] = i;
    }
    for (int i : elements.values()) {
      kept[at++] = i;
    }
    Arrays.sort(kept, 0, at);
    return at;
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
    return keyLengths[records[item]];
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
    int op = records[item];
    System.arraycopy(keyData, keyOffsets[op], out, at, keyLengths[op]);
  }

  @Override
  public void copyValue(int item, byte[] out, int at) {
    if (!RecordDescriptor.isDelete(types[item])) {
      byte[] value = values[records[item]];
      System.arraycopy(value, 0, out, at, value.length);
    }
  }
}
