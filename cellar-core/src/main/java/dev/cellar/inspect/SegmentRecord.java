package dev.cellar.inspect;

import dev.cellar.log.RecordView;
import java.lang.foreign.MemorySegment;

/**
 * One valid record of a segment file, as {@link SegmentFile#scan} shows it: a view over the
 * engine's record parser, reused from record to record (copy what must outlive the call). The
 * layout is {@code RecordDescriptor}'s ({@code docs/format/log.md}).
 */
public final class SegmentRecord {
  private final RecordView view;

  SegmentRecord(RecordView view) {
    this.view = view;
  }

  /** Offset of the record in its file. */
  public long offset() {
    return view.offset();
  }

  /** Bytes of the record, framing included. */
  public long length() {
    return view.length();
  }

  public long seq() {
    return view.seq();
  }

  public boolean isDelete() {
    return view.isDelete();
  }

  /** Epoch millis, or 0 when the record does not expire. */
  public long expireAt() {
    return view.expireAt();
  }

  public long keyLength() {
    return view.keyLength();
  }

  public long valueLength() {
    return view.valueLength();
  }

  /** The key's bytes in the mapped file; valid only during the visit. */
  public MemorySegment key() {
    return view.key();
  }

  /** The value's bytes in the mapped file (empty for a delete); valid only during the visit. */
  public MemorySegment value() {
    return view.value();
  }
}
