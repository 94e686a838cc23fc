package dev.cellar.store;

import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.NoSuchElementException;

/**
 * Iterates a store shard by shard. On reaching a shard it copies that shard's locations under its
 * read lock (a point-in-time view, a few milliseconds at most), then reads the records without any
 * lock: records are immutable and, while any cursor is open, compaction does not delete the
 * segments it replaces. A key present for the whole scan is returned exactly once.
 *
 * <p>Not thread-safe; owned by the thread that iterates it.
 */
final class StoreCursor implements Cursor {
  private final Keyspace keyspace;
  private final ObsoleteSegments pins;
  private final MemorySegment prefix;
  private final RecordView view = new RecordView();
  private int shard = -1;
  private long[] locations = new long[0];
  private int position;
  private Entry next;
  private boolean closed;

  /** Opened by the caller, which counted it with {@link ObsoleteSegments#cursorOpened()}. */
  StoreCursor(Keyspace keyspace, ObsoleteSegments pins, byte[] prefix) {
    this.keyspace = keyspace;
    this.pins = pins;
    this.prefix = MemorySegment.ofArray(prefix);
  }

  @Override
  public boolean hasNext() {
    while (next == null && !closed) {
      if (position < locations.length) {
        next = entryAt(locations[position++]);
      } else if (shard + 1 < keyspace.shardCount()) {
        shard++;
        locations = keyspace.snapshotLocations(shard);
        position = 0;
      } else {
        close();
      }
    }
    return next != null;
  }

  private Entry entryAt(long location) {
    Segment segment = keyspace.segmentAt(location);
    if (segment == null
        || !view.parse(segment, LogLocation.offset(location))
        || view.isDelete()
        // Entries are plain keys and their values: headers and elements are what collections are
        // made of, read through their own calls.
        || view.isElement()
        || view.isHeader()
        || view.expiredAt(System.currentTimeMillis())
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
    if (keyspace.verifiesChecksumsOnRead() && !view.checksumValid()) {
      return null;
    }
    return new Entry(
        view.key().toArray(ValueLayout.JAVA_BYTE),
        view.value().toArray(ValueLayout.JAVA_BYTE),
        view.expireAt());
  }

  @Override
  public Entry next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Entry out = next;
    next = null;
    return out;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      locations = new long[0];
      pins.cursorClosed();
    }
  }
}
