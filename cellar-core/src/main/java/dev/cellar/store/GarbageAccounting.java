package dev.cellar.store;

import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordPeek;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.lang.foreign.MemorySegment;

/**
 * Counts records that nothing points at any more as garbage of their segment, which is what
 * compaction chooses its victims by. Called with the key's shard lock held (or during recovery);
 * the counters are atomics, so writers of different shards may count into one segment at once.
 */
final class GarbageAccounting {
  private final SegmentTable segments;

  GarbageAccounting(SegmentTable segments) {
    this.segments = segments;
  }

  /**
   * Accounts the record at {@code location} as garbage now that the index no longer points at it;
   * returns whether it held a live (unexpired) value. Only for a location just taken out of the
   * index. The record is not marked dead: compaction learns which records are live from the index
   * itself ({@link LiveRecords}), and the mark's word of the segment's dead-record map was a cache
   * miss on every overwrite, where the record itself is in cache (the index's key comparison read
   * it a moment ago).
   */
  boolean retire(long location) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null) {
      return false;
    }
    long offset = LogLocation.offset(location);
    if (segment.cipher() == null && !segment.directReads()) {
      // Every overwrite comes here, so no object: see RecordPeek.
      MemorySegment memory = segment.memory();
      long header = RecordPeek.header(memory, offset, segment.end());
      if (header == RecordPeek.INVALID) {
        return false;
      }
      if (header != RecordPeek.UNDECIDED) {
        long length = RecordPeek.length(header);
        long expireAt = RecordPeek.expireAt(memory, offset, header);
        return retired(segment, length, RecordPeek.isDelete(header), expireAt);
      }
    }
    RecordView view = VIEW.get();
    if (!view.parse(segment, offset)) {
      return false;
    }
    return retired(segment, view.length(), view.isDelete(), view.expireAt());
  }

  /** Counts a retired record of {@code segment}; whether it held a live value. */
  private static boolean retired(Segment segment, long length, boolean delete, long expireAt) {
    segment.addDead(length);
    if (expireAt != 0) {
      segment.removeTtl(length);
    }
    return !delete && (expireAt == 0 || expireAt > System.currentTimeMillis());
  }

  private static final ThreadLocal<RecordView> VIEW = ThreadLocal.withInitial(RecordView::new);

  /** Accounts a record that is garbage from birth (a tombstone). */
  void deadAt(long location) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null) {
      return;
    }
    long offset = LogLocation.offset(location);
    if (segment.cipher() == null && !segment.directReads()) {
      long header = RecordPeek.header(segment.memory(), offset, segment.end());
      if (header == RecordPeek.INVALID) {
        return;
      }
      if (header != RecordPeek.UNDECIDED) {
        segment.addDead(RecordPeek.length(header));
        return;
      }
    }
    RecordView view = VIEW.get();
    if (view.parse(segment, offset)) {
      segment.addDead(view.length());
    }
  }
}
