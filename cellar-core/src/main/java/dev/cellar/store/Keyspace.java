package dev.cellar.store;

import static dev.cellar.Cellar.ABSENT;

import dev.cellar.BatchValueSink;
import dev.cellar.CellarOptions;
import dev.cellar.CorruptStoreException;
import dev.cellar.ValueSink;
import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.BlockReads;
import dev.cellar.log.CacheFill;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

/**
 * The keys: sharded off-heap indexes over the log's segments, and every read of them.
 *
 * <h2>Read path</h2>
 *
 * Hash the key (SipHash, seeded per store), find the location in the shard's index under an
 * optimistic stamp, read the record header, validate the stamp; then copy the value out (records
 * are immutable) and check its CRC. No lock word is written on a read, so reads scale with cores. A
 * read that races compaction (its segment unmapped after the lookup) looks the key up again.
 *
 * <h2>Batches</h2>
 *
 * One lookup makes two dependent cache misses (the index slot, then the record), about 290 ns here.
 * {@link #prefetch} touches a batch's slots, then their records, so the CPU has many misses in
 * flight at once; the reads that follow hit the cache. {@link #getAll} and {@link #readAll} do the
 * same themselves, {@link #BATCH_WINDOW} keys at a time. How many misses really overlap is bounded
 * by the out-of-order window: a load that misses holds up retirement, and each key's touch is
 * dozens of instructions (Java has no prefetch instruction that would retire at once), which is why
 * {@link #touch} issues the records' loads from a pass that does nothing else. Measured at 1.9 to
 * 2.15 times the single-get rate on a quiet 2-core host (docs/benchmarks.md, "The engine-shape
 * targets on a quiet host").
 *
 * <p>Writers change a shard's index under its write lock ({@link #shard}); this class only reads.
 */
final class Keyspace {
  private static final int OPTIMISTIC_ATTEMPTS = 8;

  /** Uniform draws {@link #randomKey()} makes: enough unless the index is under about 1/8 full. */
  private static final int RANDOM_KEY_PROBES = 32;

  /** Walks {@link #randomKey()} makes after that, before concluding that every key has expired. */
  private static final int RANDOM_KEY_WALKS = 16;

  static final MemorySegment NO_PREFIX = MemorySegment.ofArray(new byte[0]);

  private final Shard[] shards;
  private final int shardMask;
  private final KeyHasher hasher;
  private final SegmentTable segments;
  private final CellarOptions options;
  private final StoreHealth health;

  Keyspace(
      int shardCount,
      KeyHasher hasher,
      SegmentTable segments,
      CellarOptions options,
      StoreHealth health) {
    this.shards = new Shard[shardCount];
    this.shardMask = shardCount - 1;
    this.hasher = hasher;
    this.segments = segments;
    this.options = options;
    this.health = health;
    for (int i = 0; i < shards.length; i++) {
      shards[i] = new Shard(segments, hasher);
    }
  }

  Shard[] shards() {
    return shards;
  }

  /** The shard that holds the key of hash {@code hash}. */
  Shard shard(long hash) {
    return shards[(int) hash & shardMask];
  }

  KeyHasher hasher() {
    return hasher;
  }

  void checkOpen() {
    health.checkOpen();
  }

  static MemorySegment segmentOf(byte[] key) {
    Objects.requireNonNull(key, "key");
    return MemorySegment.ofArray(key);
  }

  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    // A segment over the caller's array would be allocated per call (the lookup is too large for
    // escape analysis to remove it): a short key is looked up from a per-thread copy instead, so
    // the value returned is the call's only allocation. No caller code runs during the lookup
    // (copyOut calls none), so a nested read cannot overwrite the copy while it is in use.
    return readLive(
        lookupKey(key, KEY_SCRATCH.get()), 0, key.length, hasher.hash(key), copyOut, null);
  }

  /**
   * {@link dev.cellar.Cellar#readHeader(byte[], dev.cellar.Cellar.HeaderSink)}: a short key is
   * looked up from a per-thread copy of its own (not {@link #KEY_SCRATCH}, which a {@link #get}
   * could be using further up the stack), which only a header read inside the sink could overwrite,
   * and the sink must not read the store.
   */
  boolean readHeader(byte[] key, dev.cellar.Cellar.HeaderSink sink) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(sink, "sink");
    return readLive(
            lookupKey(key, HEADER_KEY_SCRATCH.get()),
            0,
            key.length,
            hasher.hash(key),
            LOOKUP.get(),
            feedHeaderSink,
            sink,
            true)
        != null;
  }

  /** {@link #get(byte[])} in the keyspace of elements. */
  byte[] getElement(byte[] key) {
    Objects.requireNonNull(key, "key");
    return readLive(
        lookupKey(key, KEY_SCRATCH.get()),
        0,
        key.length,
        KeyHasher.element(hasher.hash(key)),
        copyOut,
        null);
  }

  /** {@code key} copied into {@code copy} if it fits, else a segment over the caller's array. */
  private static MemorySegment lookupKey(byte[] key, MemorySegment copy) {
    if (key.length > KEY_SCRATCH_BYTES) {
      return MemorySegment.ofArray(key);
    }
    MemorySegment.copy(key, 0, copy, ValueLayout.JAVA_BYTE, 0, key.length);
    return copy;
  }

  /** Keys up to this length are looked up by {@link #get(byte[])} from {@link #KEY_SCRATCH}. */
  private static final int KEY_SCRATCH_BYTES = 256;

  private static final ThreadLocal<MemorySegment> KEY_SCRATCH =
      ThreadLocal.withInitial(() -> MemorySegment.ofArray(new byte[KEY_SCRATCH_BYTES]));

  /** {@link #KEY_SCRATCH} of header reads. */
  private static final ThreadLocal<MemorySegment> HEADER_KEY_SCRATCH =
      ThreadLocal.withInitial(() -> MemorySegment.ofArray(new byte[KEY_SCRATCH_BYTES]));

  <R> R read(byte[] key, Function<MemorySegment, R> reader) {
    return read(segmentOf(key), reader);
  }

  @SuppressWarnings("unchecked")
  <R> R read(MemorySegment key, Function<MemorySegment, R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    return (R) readLive(key, 0, key.byteSize(), applyReader, reader);
  }

  @SuppressWarnings("unchecked")
  <R> R readHeader(MemorySegment key, Function<MemorySegment, R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    long hash = hasher.hash(key);
    return (R) readLive(key, 0, key.byteSize(), hash, LOOKUP.get(), applyReader, reader, true);
  }

  @SuppressWarnings("unchecked")
  <R> R readHeader(MemorySegment key, dev.cellar.Cellar.HeaderReader<R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    long hash = hasher.hash(key);
    return (R)
        readLive(key, 0, key.byteSize(), hash, LOOKUP.get(), applyHeaderReader, reader, true);
  }

  @SuppressWarnings("unchecked")
  <R> R readElement(MemorySegment key, Function<MemorySegment, R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    long hash = KeyHasher.element(hasher.hash(key));
    return (R) readLive(key, 0, key.byteSize(), hash, applyReader, reader);
  }

  boolean readElement(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    Objects.requireNonNull(keySource, "key");
    Objects.requireNonNull(sink, "sink");
    Objects.checkFromIndexSize(keyOffset, keyLength, keySource.byteSize());
    long hash = KeyHasher.element(hasher.hash(keySource, keyOffset, keyLength));
    return readLive(keySource, keyOffset, keyLength, hash, feedSink, sink) != null;
  }

  boolean read(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    Objects.requireNonNull(keySource, "key");
    Objects.requireNonNull(sink, "sink");
    Objects.checkFromIndexSize(keyOffset, keyLength, keySource.byteSize());
    return readLive(keySource, keyOffset, keyLength, feedSink, sink) != null;
  }

  /**
   * What a read does with the live record it found, given the caller's argument ({@code with}): one
   * instance per kind of read, made with the store, so that a read creates no lambda.
   */
  private interface RecordAction<R, A> {
    R apply(Segment segment, RecordView view, A with);
  }

  private final RecordAction<byte[], Void> copyOut =
      (segment, view, unused) -> {
        byte[] value = view.checkedValue(verifiesChecksumsOnRead());
        if (value == null) {
          throw corruptRecord(segment, view);
        }
        return value;
      };

  private final RecordAction<Object, Function<MemorySegment, ?>> applyReader =
      (segment, view, reader) -> {
        verifyOnRead(segment, view);
        return reader.apply(view.value().asReadOnly());
      };

  private final RecordAction<Object, dev.cellar.Cellar.HeaderReader<?>> applyHeaderReader =
      (segment, view, reader) -> {
        verifyOnRead(segment, view);
        return reader.read(view.value().asReadOnly(), view.expireAt());
      };

  private final RecordAction<Boolean, dev.cellar.Cellar.HeaderSink> feedHeaderSink =
      (segment, view, sink) -> {
        verifyOnRead(segment, view);
        sink.accept(
            readable(segment, view), view.valueOffset(), view.valueLength(), view.expireAt());
        return Boolean.TRUE;
      };

  private final RecordAction<Boolean, ValueSink> feedSink =
      (segment, view, sink) -> {
        verifyOnRead(segment, view);
        sink.accept(readable(segment, view), view.valueOffset(), view.valueLength());
        return Boolean.TRUE;
      };

  /**
   * What a sink is handed the value in: the segment's mapping, read-only, or an encrypted record's
   * decrypted copy, or a compressed value's decompressed copy (valid until the view parses again,
   * which no read does before its sink returns).
   */
  private static MemorySegment readable(Segment segment, RecordView view) {
    if (view.compressed()) {
      return view.valueData().asReadOnly();
    }
    return view.encrypted() || view.direct() ? view.data().asReadOnly() : segment.readOnlyMemory();
  }

  private void verifyOnRead(Segment segment, RecordView view) {
    if (verifiesChecksumsOnRead() && !view.checksumValid()) {
      throw corruptRecord(segment, view);
    }
  }

  boolean verifiesChecksumsOnRead() {
    return options.verifyChecksumsOnRead();
  }

  /**
   * Per-thread key comparison and header scratch for lookups, so a read allocates none. Safe to
   * share between nested reads on one thread (a reader that reads the store again) because no read
   * looks at the view after it has called out to a caller's code: a retry parses it anew.
   */
  private static final ThreadLocal<ReadMatch> LOOKUP =
      ThreadLocal.withInitial(() -> new ReadMatch(true));

  /** Per-thread room for {@link #prefetch}'s hashes. */
  private static final ThreadLocal<long[]> PREFETCH_HASHES =
      ThreadLocal.withInitial(() -> new long[64]);

  long prefetch(MemorySegment source, long[] offsets, long[] lengths, int count) {
    if (health.isClosed()) {
      return 0;
    }
    long[] hashes = PREFETCH_HASHES.get();
    if (hashes.length < count) {
      hashes = new long[count];
      PREFETCH_HASHES.set(hashes);
    }
    // Three tight passes rather than one: the loads of a pass are independent of each other and
    // few instructions apart, so the CPU has many of them in flight at once.
    for (int i = 0; i < count; i++) {
      hashes[i] = hasher.hash(source, offsets[i], lengths[i]);
    }
    return touch(hashes, count, true);
  }

  // ---------------------------------------------------------------- batches

  /**
   * Keys a batch hashes and touches ahead of reading or writing them. Large enough to keep the
   * memory system busy (a core has some 20 misses in flight at most), small enough that the lines
   * it brought in are still in L1 when the batch gets to them, however long the batch.
   */
  static final int BATCH_WINDOW = 32;

  /**
   * A thread's room for one batch: the hashes and order of its current window, and what its reads
   * hand on. Taken for the length of a batch; a batch started meanwhile on the same thread (a
   * caller's sink that reads a batch itself) gets one of its own.
   */
  static final class BatchScratch {
    final long[] hashes = new long[BATCH_WINDOW];
    final int[] order = new int[BATCH_WINDOW];

    /**
     * The batch's lookups compare keys and parse into this (a sink that reads a batch itself gets
     * its own).
     */
    final ReadMatch match = new ReadMatch(false);

    /** Where {@link #getAll} copies a short key to look it up. */
    final MemorySegment keyCopy = MemorySegment.ofArray(new byte[KEY_SCRATCH_BYTES]);

    BatchValueSink sink;
    int index;

    /** Where the touches' loads go, so that the JIT keeps them; never read. */
    long digest;

    private boolean busy;
  }

  private static final ThreadLocal<BatchScratch> BATCH_SCRATCH =
      ThreadLocal.withInitial(BatchScratch::new);

  static BatchScratch takeScratch() {
    BatchScratch scratch = BATCH_SCRATCH.get();
    if (scratch.busy) {
      scratch = new BatchScratch();
    }
    scratch.busy = true;
    return scratch;
  }

  static void releaseScratch(BatchScratch scratch) {
    scratch.sink = null;
    scratch.busy = false;
  }

  /** The number of the shard that holds the key of hash {@code hash}. */
  int shardIndex(long hash) {
    return (int) hash & shardMask;
  }

  /** Per thread: where {@link #touch}'s second round of loads goes, worked out before it starts. */
  private static final class TouchTargets {
    Segment[] segments = new Segment[BATCH_WINDOW];
    long[] offsets = new long[BATCH_WINDOW];

    /** The record's second cache line, or its first again where the record ends before it. */
    long[] secondLines = new long[BATCH_WINDOW];

    /** The line {@link ReadMatch#RECORD_LAST_BYTE} bytes on (a third line), or the second again. */
    long[] thirdLines = new long[BATCH_WINDOW];

    void ensure(int count) {
      if (segments.length < count) {
        segments = new Segment[count];
        offsets = new long[count];
        secondLines = new long[count];
        thirdLines = new long[count];
      }
    }
  }

  private static final ThreadLocal<TouchTargets> TOUCH_TARGETS =
      ThreadLocal.withInitial(TouchTargets::new);

  /** Per thread: the records of a batch read through the read cache, to read their blocks ahead. */
  private static final ThreadLocal<CacheFill> CACHE_FILL = ThreadLocal.withInitial(CacheFill::new);

  /** What reads a batch's cache misses at once, in {@code io direct}; null otherwise. */
  private volatile BlockReads blockReads;

  void blockReads(BlockReads reads) {
    this.blockReads = reads;
  }

  /**
   * Reads, for the {@code count} keys of hashes {@code hashes}, the memory their lookups read
   * first: all the index slots, then all the records the slots point at (a record's second line
   * only for reads, {@code !forWrite}: a write compares the key, in the first). Takes no lock and
   * never fails; returns a digest of the words read.
   *
   * <p>Why three passes and not one loop: a load that misses holds up retirement, so the misses in
   * flight at once are those the out-of-order window (some 200 instructions) reaches past the
   * oldest one. The slot pass is a few instructions a key. The records' addresses are worked out in
   * a pass of their own (it reads the slots, which the first pass brought in, and the segment
   * table), so that the pass which loads the records is only the loads and their bounds checks, a
   * dozen instructions a key where the address work made the loop's body several times longer, so
   * that the window reaches over several times as many of the records' misses.
   */
  long touch(long[] hashes, int count, boolean forWrite) {
    long digest = 0;
    for (int i = 0; i < count; i++) {
      digest ^= shard(hashes[i]).index.touch(hashes[i]);
    }
    TouchTargets targets = TOUCH_TARGETS.get();
    targets.ensure(count);
    Segment[] targetSegments = targets.segments;
    long[] targetOffsets = targets.offsets;
    long[] secondLines = targets.secondLines;
    long[] thirdLines = targets.thirdLines;
    int n = 0;
    BlockReads direct = blockReads;
    CacheFill fill = direct == null ? null : CACHE_FILL.get();
    for (int i = 0; i < count; i++) {
      long location = shard(hashes[i]).index.guessLocation(hashes[i]);
      Segment segment = location == 0 ? null : segments.get(LogLocation.slot(location));
      long offset = LogLocation.offset(location);
      long end = segment == null ? 0 : segment.end();
      // A segment read with O_DIRECT is not read through its mapping: touching it would fault its
      // pages (and their read-ahead) into the page cache the read cache replaces. Its blocks are
      // read ahead instead, all the batch's misses at once.
      if (offset < end && segment.directReads()) {
        if (fill != null) {
          fill.add(segment, offset);
        }
      } else if (offset < end) {
        targetSegments[n] = segment;
        targetOffsets[n] = offset;
        // Only below the written end: the mapping may reach past the file's end.
        long second =
            offset + ReadMatch.RECORD_SECOND_LINE < end
                ? offset + ReadMatch.RECORD_SECOND_LINE
                : offset;
        secondLines[n] = second;
        thirdLines[n++] =
            offset + ReadMatch.RECORD_LAST_BYTE < end
                ? offset + ReadMatch.RECORD_LAST_BYTE
                : second;
      }
    }
    try {
      digest ^=
          touchRecords(
              targetSegments,
              targetOffsets,
              forWrite ? targetOffsets : secondLines,
              forWrite ? targetOffsets : thirdLines,
              n);
    } finally {
      Arrays.fill(targetSegments, 0, n, null); // no reference kept to a segment compaction drops
    }
    if (fill != null && !fill.isEmpty()) {
      digest += fill.fill(direct);
    }
    return digest;
  }

  /**
   * Loads the lines of each record at {@code offsets}, {@code secondLines} and {@code thirdLines}:
   * a read checks the whole record's CRC, and a record of a 60-byte value with its header and key
   * (about 83 bytes) always reaches into the second line, and into a third when it starts late in
   * its first.
   */
  private static long touchRecords(
      Segment[] targets, long[] offsets, long[] secondLines, long[] thirdLines, int n) {
    long digest = 0;
    for (int i = 0; i < n; i++) {
      try {
        MemorySegment memory = targets[i].memory();
        digest ^= memory.get(ValueLayout.JAVA_BYTE, offsets[i]);
        digest ^= memory.get(ValueLayout.JAVA_BYTE, secondLines[i]);
        digest ^= memory.get(ValueLayout.JAVA_BYTE, thirdLines[i]);
      } catch (IllegalStateException unmapped) {
        // compaction replaced the segment meanwhile: nothing to gain from it
      }
    }
    return digest;
  }

  /** See {@link dev.cellar.Cellar#getAll(byte[][])}. */
  byte[][] getAll(byte[][] keys) {
    Objects.requireNonNull(keys, "keys");
    checkOpen();
    byte[][] values = new byte[keys.length][];
    BatchScratch scratch = takeScratch();
    try {
      long[] hashes = scratch.hashes;
      for (int from = 0; from < keys.length; from += BATCH_WINDOW) {
        int n = Math.min(BATCH_WINDOW, keys.length - from);
        for (int i = 0; i < n; i++) {
          hashes[i] = hasher.hash(Objects.requireNonNull(keys[from + i], "key"));
        }
        scratch.digest ^= touch(hashes, n, false);
        for (int i = 0; i < n; i++) {
          byte[] key = keys[from + i];
          // As in get(byte[]): a short key is looked up from a copy, not a segment made per key.
          values[from + i] =
              readLive(
                  lookupKey(key, scratch.keyCopy),
                  0,
                  key.length,
                  hashes[i],
                  scratch.match,
                  copyOut,
                  null);
        }
      }
    } finally {
      releaseScratch(scratch);
    }
    return values;
  }

  /** See {@link dev.cellar.Cellar#readAll}. */
  int readAll(
      MemorySegment source, long[] offsets, long[] lengths, int count, BatchValueSink sink) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(sink, "sink");
    Objects.checkFromIndexSize(0, count, Math.min(offsets.length, lengths.length));
    checkOpen();
    BatchScratch scratch = takeScratch();
    scratch.sink = sink;
    int found = 0;
    try {
      long[] hashes = scratch.hashes;
      for (int from = 0; from < count; from += BATCH_WINDOW) {
        int n = Math.min(BATCH_WINDOW, count - from);
        for (int i = 0; i < n; i++) {
          Objects.checkFromIndexSize(offsets[from + i], lengths[from + i], source.byteSize());
          hashes[i] = hasher.hash(source, offsets[from + i], lengths[from + i]);
        }
        scratch.digest ^= touch(hashes, n, false);
        for (int i = 0; i < n; i++) {
          int index = from + i;
          scratch.index = index;
          if (readLive(
                  source,
                  offsets[index],
                  lengths[index],
                  hashes[i],
                  scratch.match,
                  feedBatch,
                  scratch)
              != null) {
            found++;
          } else {
            sink.absent(index);
          }
        }
      }
    } finally {
      releaseScratch(scratch);
    }
    return found;
  }

  private final RecordAction<Boolean, BatchScratch> feedBatch =
      (segment, view, scratch) -> {
        verifyOnRead(segment, view);
        scratch.sink.accept(
            scratch.index, readable(segment, view), view.valueOffset(), view.valueLength());
        return Boolean.TRUE;
      };

  /**
   * Finds the live, unexpired record for the key in {@code key[offset, offset + length)} and
   * applies {@code action} to it; returns null if there is none. If compaction unmaps the record's
   * segment while the action runs (it moved the record after we found it), the lookup is repeated,
   * so the action may run twice.
   */
  private <R, A> R readLive(
      MemorySegment key, long offset, long length, RecordAction<R, A> action, A with) {
    return readLive(key, offset, length, hasher.hash(key, offset, length), action, with);
  }

  /** {@link #readLive}, given the key's hash. */
  private <R, A> R readLive(
      MemorySegment key, long offset, long length, long hash, RecordAction<R, A> action, A with) {
    return readLive(key, offset, length, hash, LOOKUP.get(), action, with);
  }

  /** {@link #readLive}, given the key's hash and the comparison to look up with (a batch's own). */
  private <R, A> R readLive(
      MemorySegment key,
      long offset,
      long length,
      long hash,
      ReadMatch match,
      RecordAction<R, A> action,
      A with) {
    return readLive(key, offset, length, hash, match, action, with, false);
  }

  /**
   * {@link #readLive}, reading a header if {@code header} (a plain value reads as absent), else a
   * plain value or, given an element's hash, an element (a header reads as absent).
   */
  private <R, A> R readLive(
      MemorySegment key,
      long offset,
      long length,
      long hash,
      ReadMatch match,
      RecordAction<R, A> action,
      A with,
      boolean header) {
    checkOpen();
    Shard shard = shard(hash);
    RecordView view = match.view;
    for (int attempt = 0; ; attempt++) {
      Segment segment = locate(shard, hash, key, offset, length, match, attempt);
      if (segment == null
          || view.isHeader() != header
          || (view.expireAt() != 0 && view.expiredAt(System.currentTimeMillis()))) {
        return null;
      }
      try {
        return action.apply(segment, view, with);
      } catch (IllegalStateException e) {
        // Compaction removes a segment from the table before it unmaps it: anything else is not
        // ours to retry (a caller's reader may throw this exception for its own reasons).
        if (segments.get(segment.slot()) == segment) {
          throw e;
        }
        checkOpen();
      }
    }
  }

  /**
   * Finds the live record for {@code key} and parses its header into {@code match}'s view; returns
   * its segment, or null if the key is absent (tombstones read as absent). The result was current
   * at some instant during the call.
   */
  private Segment locate(
      Shard shard,
      long hash,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      ReadMatch match,
      int retries) {
    RecordView view = match.view;
    for (int attempt = 0; ; attempt++) {
      boolean locked = attempt + retries >= OPTIMISTIC_ATTEMPTS;
      long stamp = locked ? shard.lock.readLock() : shard.lock.tryOptimisticRead();
      try {
        if (stamp == 0) {
          Thread.onSpinWait();
          continue;
        }
        long location = shard.index.get(hash, key, keyOffset, keyLength, match.in(segments));
        // The comparison that found the key left its record parsed in the view.
        Segment segment = match.parsedAt(location);
        if (locked || shard.lock.validate(stamp)) {
          if (location == 0) {
            return null;
          }
          assert segment != null : "the index returned a location its comparison did not match";
          return view.isDelete() ? null : segment;
        }
      } catch (IllegalStateException | IndexOutOfBoundsException raced) {
        // A writer changed what we were reading (resized the index, unmapped a segment): retry.
        if (locked) {
          throw raced;
        }
      } finally {
        if (locked) {
          shard.lock.unlockRead(stamp);
        }
      }
    }
  }

  private static CorruptStoreException corruptRecord(Segment segment, RecordView view) {
    return new CorruptStoreException(
        "a record failed its checksum; the value is not returned",
        List.of(
            segment.path()
                + " offset "
                + view.offset()
                + ": "
                + view.length()
                + " bytes, CRC32C mismatch"));
  }

  long expiryOf(byte[] key) {
    return expiryOf(segmentOf(key));
  }

  long expiryOf(MemorySegment key) {
    Objects.requireNonNull(key, "key");
    return readMeta(key);
  }

  /**
   * The expiry of the live record for {@code k}, {@link dev.cellar.Cellar#NO_EXPIRY} for none, or
   * {@link dev.cellar.Cellar#ABSENT}.
   */
  private long readMeta(MemorySegment k) {
    checkOpen();
    long hash = hasher.hash(k);
    ReadMatch match = LOOKUP.get();
    RecordView view = match.view;
    Segment segment = locate(shard(hash), hash, k, 0, k.byteSize(), match, 0);
    if (segment == null || view.expiredAt(System.currentTimeMillis())) {
      return ABSENT;
    }
    return view.expireAt();
  }

  /** The seq of the live record for {@code k}, or 0 if it is absent or expired. */
  long version(MemorySegment k) {
    checkOpen();
    long hash = hasher.hash(k);
    ReadMatch match = LOOKUP.get();
    RecordView view = match.view;
    Segment segment = locate(shard(hash), hash, k, 0, k.byteSize(), match, 0);
    if (segment == null || view.expiredAt(System.currentTimeMillis())) {
      return 0;
    }
    return view.seq();
  }

  boolean contains(byte[] key) {
    return readMeta(segmentOf(key)) != ABSENT;
  }

  long size() {
    checkOpen();
    long total = 0;
    for (Shard s : shards) {
      long stamp = s.lock.readLock();
      try {
        total += s.index.size() - s.elements;
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return total;
  }

  long elementCount() {
    checkOpen();
    long total = 0;
    for (Shard s : shards) {
      long stamp = s.lock.readLock();
      try {
        total += s.elements;
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return total;
  }

  /**
   * Draws a shard and a slot in it uniformly until a slot holds a live key. With shards' tables of
   * equal size (as they are, give or take a doubling, since hashing spreads keys evenly) that is a
   * uniform draw over all keys, and it takes about 1 / load draws, 2 to 3 normally. An index too
   * sparse for that (a nearly empty store, or one full of expired keys) draws a rank over all
   * entries instead, a shard in proportion to its entries and the entry of that rank in it, which
   * is uniform too but reads the shard's table.
   */
  byte[] randomKey() {
    checkOpen();
    RandomGenerator random = ThreadLocalRandom.current();
    RecordView view = new RecordView();
    for (int draw = 0; draw < RANDOM_KEY_PROBES; draw++) {
      byte[] key = randomKeyIn(shards[random.nextInt(shards.length)], random, view);
      if (key != null) {
        return key;
      }
    }
    long[] sizes = new long[shards.length];
    for (int attempt = 0; attempt < RANDOM_KEY_WALKS; attempt++) {
      long total = 0;
      for (int i = 0; i < shards.length; i++) {
        sizes[i] = sizeOf(shards[i]);
        total += sizes[i];
      }
      if (total == 0) {
        return null;
      }
      long rank = random.nextLong(total);
      int shard = 0;
      while (rank >= sizes[shard]) {
        rank -= sizes[shard++];
      }
      byte[] key = keyOfRankIn(shards[shard], rank, view);
      if (key != null) {
        return key;
      }
    }
    return null;
  }

  /** A probed live key of {@code shard}, or null (a free slot, an expired key). */
  private byte[] randomKeyIn(Shard shard, RandomGenerator random, RecordView view) {
    return liveKeyIn(shard, view, index -> index.probe(random));
  }

  /**
   * The key of {@code shard}'s entry of that rank if it is live, or null (an expired key, or fewer
   * entries than when the rank was drawn).
   */
  private byte[] keyOfRankIn(Shard shard, long rank, RecordView view) {
    return liveKeyIn(shard, view, index -> index.entryOfRank(rank));
  }

  /** The live key at the location {@code locate} finds in {@code shard}'s index, under its lock. */
  private byte[] liveKeyIn(Shard shard, RecordView view, ToLongFunction<HashIndex> locate) {
    long stamp = shard.lock.readLock();
    try {
      checkOpen();
      long location = locate.applyAsLong(shard.index);
      return location == 0
          ? null
          : liveKeyAt(location, NO_PREFIX, System.currentTimeMillis(), view, false);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  /** How many entries {@code shard}'s index holds, read without blocking writers for long. */
  private static long sizeOf(Shard shard) {
    long stamp = shard.lock.tryOptimisticRead();
    long size = shard.index.size();
    if (stamp == 0 || !shard.lock.validate(stamp)) {
      stamp = shard.lock.readLock();
      try {
        size = shard.index.size();
      } finally {
        shard.lock.unlockRead(stamp);
      }
    }
    return size;
  }

  /**
   * A copy of the key of the record at {@code location} if that record is a live, unexpired value
   * (an element if {@code elements}, else a plain value or a header) whose key starts with {@code
   * prefix}; otherwise null. The caller holds the read lock of the shard whose index yielded {@code
   * location}, which keeps the segment mapped (see {@link ScanPageTask}). The record's checksum is
   * not verified: only the key is read, and a damaged value is reported when it is read.
   */
  byte[] liveKeyAt(
      long location, MemorySegment prefix, long now, RecordView view, boolean elements) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null
        || !view.parse(segment, LogLocation.offset(location))
        || view.isDelete()
        || view.isElement() != elements
        || view.expiredAt(now)
        // An encrypted record's key is decrypted only if its tag matches: a changed key is never
        // handed out.
        || (view.encrypted() && !view.checksumValid())) {
      return null;
    }
    long prefixLength = prefix.byteSize();
    if (view.keyLength() < prefixLength
        || MemorySegment.mismatch(
                view.data(),
                view.keyOffset(),
                view.keyOffset() + prefixLength,
                prefix,
                0,
                prefixLength)
            != -1) {
      return null;
    }
    return view.key().toArray(ValueLayout.JAVA_BYTE);
  }

  /**
   * A copy of the key of the record at {@code location} if that record is a value that has expired
   * at {@code now}; otherwise null. Locking and the checksum as in {@link #liveKeyAt}.
   */
  byte[] expiredKeyAt(long location, long now, RecordView view) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null
        || !view.parse(segment, LogLocation.offset(location))
        || !expiredValue(view, now)
        || (view.encrypted() && !view.checksumValid())) {
      return null;
    }
    return view.key().toArray(ValueLayout.JAVA_BYTE);
  }

  /**
   * Whether the record at {@code location}, an index entry's, is a value that has expired at {@code
   * now}; the caller holds its shard's lock.
   */
  boolean expiredAt(long location, long now) {
    RecordView view = LOOKUP.get().view;
    Segment segment = segments.get(LogLocation.slot(location));
    return segment != null
        && view.parse(segment, LogLocation.offset(location))
        && expiredValue(view, now);
  }

  /** Whether the parsed record is a value with an expiry that has passed at {@code now}. */
  private static boolean expiredValue(RecordView view, long now) {
    return !view.isDelete() && view.expireAt() != 0 && view.expiredAt(now);
  }

  /** Copies the locations in shard {@code i} at one instant. */
  long[] snapshotLocations(int i) {
    Shard shard = shards[i];
    long stamp = shard.lock.readLock();
    try {
      long[] out = new long[(int) shard.index.size()];
      int[] n = {0};
      shard.index.forEachLocation(
          location -> {
            if (n[0] < out.length) {
              out[n[0]++] = location;
            }
          });
      return n[0] == out.length ? out : java.util.Arrays.copyOf(out, n[0]);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  int shardCount() {
    return shards.length;
  }

  Segment segmentAt(long location) {
    return segments.get(LogLocation.slot(location));
  }

  /** Off-heap bytes of the index tables: about the size of a checkpoint. */
  long indexBytes() {
    long bytes = 0;
    for (Shard s : shards) {
      long stamp = s.lock.readLock();
      try {
        bytes += s.index.memoryBytes();
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return bytes;
  }
}
