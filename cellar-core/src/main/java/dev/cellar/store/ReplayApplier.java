package dev.cellar.store;

import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import dev.cellar.recovery.Recovery;
import java.lang.foreign.MemorySegment;

/**
 * Applies replayed records by sequence number, so that segment order does not matter (compaction
 * outputs hold old records under new ids). Tombstones whose key is absent are remembered in a side
 * index for the duration of the replay, so an older put replayed later stays deleted.
 */
final class ReplayApplier implements Recovery.Target, AutoCloseable {
  private final Shard[] shards;
  private final int shardMask;
  private final KeyHasher hasher;
  private final SegmentTable segments;
  private final GarbageAccounting accounting;
  private final HashIndex[] tombstones;
  private final RecordView scratch = new RecordView();

  ReplayApplier(
      Shard[] shards, KeyHasher hasher, SegmentTable segments, GarbageAccounting accounting) {
    this.shards = shards;
    this.shardMask = shards.length - 1;
    this.hasher = hasher;
    this.segments = segments;
    this.accounting = accounting;
    this.tombstones = new HashIndex[shards.length];
  }

  @Override
  public void apply(Segment segment, RecordView record) {
    long hash = hasher.hash(segment.memory(), record.keyOffset(), record.keyLength());
    int shardId = (int) hash & shardMask;
    Shard shard = shards[shardId];
    MemorySegment key = record.key();
    long location = LogLocation.of(segment.slot(), record.offset());
    long existing = shard.index.get(hash, key);
    if (existing == location) {
      return;
    }
    long newestSeq = existing != 0 ? seqAt(existing) : tombstoneSeq(shardId, hash, key);
    if (newestSeq >= record.seq()) {
      // A newer record of the key is in the index: this one can never be current again.
      segment.addDead(record.length());
      if (!record.isDelete()) {
        segment.markDead(record.offset());
      }
      return;
    }
    if (record.isDelete()) {
      if (existing != 0) {
        shard.index.remove(hash, key);
        accounting.retire(existing);
      }
      tombstonesOf(shardId).put(hash, key, location);
      segment.addDead(record.length());
    } else {
      shard.index.put(hash, key, location);
      if (existing != 0) {
        accounting.retire(existing);
      }
      if (record.expireAt() != 0) {
        segment.addTtl(record.length(), record.expireAt());
      }
    }
  }

  private long seqAt(long location) {
    Segment s = segments.get(LogLocation.slot(location));
    if (s == null || !scratch.parse(s.memory(), LogLocation.offset(location), s.end())) {
      return -1;
    }
    return scratch.seq();
  }

  private long tombstoneSeq(int shardId, long hash, MemorySegment key) {
    HashIndex t = tombstones[shardId];
    long location = t == null ? 0 : t.get(hash, key);
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
