package dev.cellar.store;

import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.BlockReads;
import dev.cellar.log.CacheFill;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import dev.cellar.recovery.Recovery;
import dev.cellar.recovery.ReplayBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Applies replayed records by sequence number, so that segment order does not matter (compaction
 * outputs hold old records under new ids). Tombstones whose key is absent are remembered in a side
 * index for the duration of the replay, so an older put replayed later stays deleted.
 *
 * <h2>Overlapping the cache misses</h2>
 *
 * Replay reads the log in order, which the hardware prefetcher covers, but each record's index slot
 * is a random word in a table of tens or hundreds of megabytes: a DRAM miss, and with one record
 * applied at a time those misses came one after another (3/4 of replay's samples stalled on the
 * slot). So a batch is applied in stages, each of which issues independent loads that the CPU keeps
 * in flight together, as group prefetching does:
 *
 * <ol>
 *   <li>hash every key of the batch (no memory but the batch's own records, already in cache) on
 *       the scanning thread ({@link #prepare}), and there touch its home slot too ({@link
 *       #prefetch}) when the applying thread has batches waiting;
 *   <li>for a group of 32 records, touch every key's home slot again (cheap if the first touch is
 *       still cached) and its slot in the tombstone index if there is one; the next group's slots
 *       are touched before this group is applied;
 *   <li>for every key whose slot holds an entry with its fingerprint, touch that entry's record
 *       (the key comparison reads it): it depends on the slot, so it waits for stage 2. In a store
 *       read with O_DIRECT the record is not in memory but on the device, unless it is in the
 *       segment being replayed (whose scan holds it): the group's such records are read into the
 *       read cache at once ({@link CacheFill}, io_uring), where the comparisons would each wait for
 *       one read in turn;
 *   <li>apply the records one by one, in log order, exactly as without the stages.
 * </ol>
 *
 * The stages only load; stage 4 alone decides anything, so the index and the accounting come out
 * the same as applying one record at a time ({@code ReplayBatchTest} compares the two).
 *
 * <p>{@link #prepare} and {@link #prefetch} run on the scanning thread and read only the batch, the
 * hasher and index slots; everything else (the index, the tombstones, the accounting) belongs to
 * the thread that calls {@link #apply}, which may be another ({@code ReplayPipeline}).
 */
final class ReplayApplier implements Recovery.Target, AutoCloseable {
  /**
   * Records whose slots are touched together: about as many misses as one core keeps in flight, and
   * few enough that the group's slots are still in L1 when they are applied.
   */
  static final int GROUP = 32;

  private final Shard[] shards;
  private final int shardMask;
  private final KeyHasher hasher;
  private final SegmentTable segments;
  private final GarbageAccounting accounting;
  private final HashIndex[] tombstones;

  /** What reads a group's candidate records at once, in a store read with O_DIRECT; else null. */
  private final BlockReads blockReads;

  private final CacheFill fill = new CacheFill();
  private final RecordView scratch = new RecordView();

  /** Where the stages put what they load, so that the JIT keeps the loads; never read. */
  private long touched;

  ReplayApplier(
      Shard[] shards,
      KeyHasher hasher,
      SegmentTable segments,
      GarbageAccounting accounting,
      BlockReads blockReads) {
    this.blockReads = blockReads;
    this.shards = shards;
    this.shardMask = shards.length - 1;
    this.hasher = hasher;
    this.segments = segments;
    this.accounting = accounting;
    this.tombstones = new HashIndex[shards.length];
  }

  /** Hashes the batch's keys, on the scanning thread. */
  @Override
  public void prepare(Segment segment, ReplayBatch batch) {
    MemorySegment log = batch.keys();
    int n = batch.size();
    for (int i = 0; i < n; i++) {
      long hash = hasher.hash(log, batch.keyOffset(i), batch.keyLength(i));
      batch.hash(i, batch.isElement(i) ? KeyHasher.element(hash) : hash);
    }
  }

  /**
   * Touches the batch's home slots, on the scanning thread when the applying thread is behind. The
   * touches bring the slots into the cache the two threads share while the applying thread works on
   * an earlier batch, which moves part of the wait on memory to the scanning thread. Reading slots
   * without the shard's lock while the other thread writes is what {@link HashIndex#touch} allows.
   */
  @Override
  public void prefetch(Segment segment, ReplayBatch batch) {
    int n = batch.size();
    long sink = 0;
    for (int i = 0; i < n; i++) {
      long hash = batch.hash(i);
      sink ^= shards[(int) hash & shardMask].index.touch(hash);
    }
    prepared ^= sink;
  }

  /** As {@link #touched}, for the scanning thread's loads. */
  private long prepared;

  @Override
  public void apply(Segment segment, ReplayBatch batch) {
    int n = batch.size();
    if (blockReads != null) {
      readCandidatesAhead(batch, n);
    }
    touchSlots(batch, 0, Math.min(n, GROUP));
    for (int from = 0; from < n; from += GROUP) {
      int to = Math.min(n, from + GROUP);
      // The next group's slot misses are issued now, to overlap this group's work.
      touchSlots(batch, to, Math.min(n, to + GROUP));
      touchCandidates(batch, from, to);
      for (int i = from; i < to; i++) {
        apply(segment, batch, i, batch.hash(i));
      }
    }
  }

  private void touchSlots(ReplayBatch batch, int from, int to) {
    long sink = 0;
    for (int i = from; i < to; i++) {
      long hash = batch.hash(i);
      int shardId = (int) hash & shardMask;
      sink ^= shards[shardId].index.touch(hash);
      HashIndex t = tombstones[shardId];
      if (t != null) {
        sink ^= t.touch(hash);
      }
    }
    touched ^= sink;
  }

  private void touchCandidates(ReplayBatch batch, int from, int to) {
    long sink = 0;
    for (int i = from; i < to; i++) {
      long hash = batch.hash(i);
      int shardId = (int) hash & shardMask;
      sink ^= touchRecord(shards[shardId].index.guessLocation(hash));
      HashIndex t = tombstones[shardId];
      if (t != null) {
        sink ^= touchRecord(t.guessLocation(hash));
      }
    }
    touched ^= sink;
  }

  /**
   * In a store read with O_DIRECT: reads the batch's candidate records that are on the device (not
   * in the segment being replayed) into the read cache at once. Per group there are too few (a
   * candidate is a key whose slot holds another key's fingerprint, a few in a hundred) for the
   * device to serve them together; per batch there are dozens.
   */
  private void readCandidatesAhead(ReplayBatch batch, int n) {
    touchSlots(batch, 0, n);
    for (int i = 0; i < n; i++) {
      long hash = batch.hash(i);
      int shardId = (int) hash & shardMask;
      readAhead(shards[shardId].index.guessLocation(hash));
      HashIndex t = tombstones[shardId];
      if (t != null) {
        readAhead(t.guessLocation(hash));
      }
    }
    if (!fill.isEmpty()) {
      touched ^= fill.fill(blockReads);
    }
  }

  private void readAhead(long location) {
    if (location == 0) {
      return;
    }
    Segment s = segments.get(LogLocation.slot(location));
    long offset = LogLocation.offset(location);
    if (s != null && offset < s.end() && s.directReads() && s.scannedAt(offset) == null) {
      fill.add(s, offset);
    }
  }

  /** Loads the first word of the record at {@code location}; 0 if none. */
  private long touchRecord(long location) {
    if (location == 0) {
      return 0;
    }
    Segment s = segments.get(LogLocation.slot(location));
    long offset = LogLocation.offset(location);
    if (s == null || offset + Long.BYTES > s.end()) {
      return 0;
    }
    if (s.directReads()) {
      // Read with O_DIRECT: the mapping would fault the page (and the read-ahead around it) into
      // the page cache. The segment being replayed is in its scan's memory; the records of others
      // were read into the read cache with the batch's (readCandidatesAhead).
      MemorySegment scanned = s.scannedAt(offset);
      return scanned == null ? 0 : scanned.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }
    return s.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
  }

  private void apply(Segment segment, ReplayBatch batch, int i, long hash) {
    int shardId = (int) hash & shardMask;
    Shard shard = shards[shardId];
    MemorySegment log = batch.keys();
    long keyOffset = batch.keyOffset(i);
    long keyLength = batch.keyLength(i);
    long offset = batch.offset(i);
    long length = batch.length(i);
    long location = LogLocation.of(segment.slot(), offset);
    long existing = shard.index.get(hash, log, keyOffset, keyLength);
    if (existing == location) {
      return;
    }
    long newestSeq =
        existing != 0 ? seqAt(existing) : tombstoneSeq(shardId, hash, log, keyOffset, keyLength);
    if (newestSeq >= batch.seq(i)) {
      // A newer record of the key is in the index: this one can never be current again.
      segment.addDead(length);
      return;
    }
    if (batch.isDelete(i)) {
      if (existing != 0) {
        shard.index.remove(hash, log, keyOffset, keyLength);
        accounting.retire(existing);
        if (batch.isElement(i)) {
          shard.elements--;
        }
      }
      tombstonesOf(shardId).put(hash, log, keyOffset, keyLength, location);
      segment.addDead(length);
    } else {
      shard.index.put(hash, log, keyOffset, keyLength, location);
      if (existing != 0) {
        accounting.retire(existing);
      } else if (batch.isElement(i)) {
        shard.elements++;
      }
      if (batch.expireAt(i) != 0) {
        segment.addTtl(length, batch.expireAt(i));
      }
    }
  }

  private long seqAt(long location) {
    Segment s = segments.get(LogLocation.slot(location));
    if (s == null || !scratch.parse(s, LogLocation.offset(location))) {
      return -1;
    }
    return scratch.seq();
  }

  private long tombstoneSeq(
      int shardId, long hash, MemorySegment log, long keyOffset, long keyLength) {
    HashIndex t = tombstones[shardId];
    long location = t == null ? 0 : t.get(hash, log, keyOffset, keyLength);
    return location == 0 ? -1 : seqAt(location);
  }

  private HashIndex tombstonesOf(int shardId) {
    if (tombstones[shardId] == null) {
      tombstones[shardId] = new HashIndex(shards[shardId], 0);
    }
    return tombstones[shardId];
  }

  @Override
  public void close() {
    for (HashIndex t : tombstones) {
      if (t != null) {
        t.close();
      }
    }
  }
}
