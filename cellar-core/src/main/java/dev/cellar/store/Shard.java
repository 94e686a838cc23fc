package dev.cellar.store;

import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordPeek;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.StampedLock;

/**
 * One partition of the keyspace: a lock and an index. A key belongs to the shard given by the low
 * bits of its hash (the index uses the top bits, so the two are independent).
 *
 * <h2>Concurrency</h2>
 *
 * Writers hold {@link #lock}'s write lock for the append and the index update. Readers take an
 * optimistic stamp, read, and validate: a read touches no shared cache line for writing, which is
 * what lets reads scale across cores. The records that locations point to are immutable, so once a
 * stamp validates the location it read, the record behind it may be read without the lock.
 */
final class Shard implements HashIndex.Keys {
  final StampedLock lock = new StampedLock();
  private final SegmentTable segments;
  private final KeyHasher hasher;
  HashIndex index;

  /** Writes since open; plain fields because they change only under the write lock. */
  long puts;

  long deletes;

  /**
   * Entries of {@link #index} that are elements (dev.cellar.log.RecordDescriptor#ELEMENT_PUT), not
   * keys: changed under the write lock, saved with the index in checkpoints.
   */
  long elements;

  Shard(SegmentTable segments, KeyHasher hasher) {
    this.segments = segments;
    this.hasher = hasher;
  }

  private static final ThreadLocal<RecordView> VIEW = ThreadLocal.withInitial(RecordView::new);

  @Override
  public boolean matches(long location, MemorySegment source, long keyOffset, long keyLength) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null) {
      return false;
    }
    long offset = LogLocation.offset(location);
    // Bounded by the segment's end, not its mapping: past a sealed segment's end the file may be
    // truncated, and touching a mapped page beyond the file's end is SIGBUS.
    if (segment.cipher() == null && !segment.directReads()) {
      // Every SET compares here (a read compares in its own view: ReadMatch), so no object: see
      // RecordPeek.
      int match =
          RecordPeek.keyMatches(
              segment.memory(), offset, segment.end(), source, keyOffset, keyLength);
      if (match != RecordPeek.UNDECIDED) {
        return match == 1;
      }
    }
    // An encrypted record is decrypted into its view's own array, and a record read with O_DIRECT
    // is copied into one: a view kept per thread, so that the comparison does not allocate that
    // array on every lookup. Long headers come here too.
    RecordView view = VIEW.get();
    return view.parse(segment, offset) && view.keyEquals(source, keyOffset, keyLength);
  }

  @Override
  public long hashAt(long location) {
    Segment segment = segments.get(LogLocation.slot(location));
    RecordView view = new RecordView();
    if (!view.parse(segment, LogLocation.offset(location))) {
      throw new IllegalStateException(
          "index points at no record: location " + Long.toHexString(location));
    }
    return KeyHasher.ofRecord(
        hasher.hash(view.data(), view.keyOffset(), view.keyLength()), view.type());
  }
}
