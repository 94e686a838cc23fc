package dev.cellar.store;

import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;

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
    // A view that never leaves this method, so that the JIT removes it (the server's
    // GarbageFreePathTest checks), unless the record is read with O_DIRECT into a view's own array.
    RecordView view = segment.directReads() ? DIRECT_VIEW.get() : new RecordView();
    if (!view.parse(segment, LogLocation.offset(location))) {
      return false;
    }
    segment.addDead(view.length());
    if (view.expireAt() != 0) {
      segment.removeTtl(view.length());
    }
    return !view.isDelete()
        && (view.expireAt() == 0 || !view.expiredAt(System.currentTimeMillis()));
  }

  private static final ThreadLocal<RecordView> DIRECT_VIEW =
      ThreadLocal.withInitial(RecordView::new);

  /** Accounts a record that is garbage from birth (a tombstone). */
  void deadAt(long location) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null) {
      return;
    }
    RecordView view = segment.directReads() ? DIRECT_VIEW.get() : new RecordView();
    if (view.parse(segment, LogLocation.offset(location))) {
      segment.addDead(view.length());
    }
  }
}
