package dev.cellar.store;

import dev.cellar.index.HashIndex;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A read's key comparison, one a thread (and one a batch in progress), with the view the read
 * parses into. It parses each candidate the index offers into that view and compares the key there,
 * so the record the index settles on is already parsed when the read goes on to it: the header used
 * to be decoded twice a read, once to compare the key ({@link Shard#matches}) and once to read the
 * record.
 *
 * <p>Before it parses a plaintext candidate held in memory, it starts the loads of the record's
 * next two cache lines ({@link #RECORD_SECOND_LINE}, {@link #RECORD_LAST_BYTE}). A record of a
 * 60-byte value (about 83 bytes) always spans two lines and sometimes three, and when the log is
 * far larger than the caches each is a miss. Started beside the first line's, their misses overlap
 * it; without them the copy of the value waits for the first line, then takes the second's miss. A
 * batch's comparison does not: the batch's touch pass has loaded those lines already ({@link
 * Keyspace#touch}), and loading them again measured slower (docs/benchmarks.md, "a fifth time").
 *
 * <p>Not thread-safe; nested reads on one thread share it as they share its view: no read looks at
 * either after it has called out to a caller's code (a retry compares and parses anew).
 */
final class ReadMatch implements HashIndex.KeyMatch {
  /** A cache line on from a record's start: its second line, if it reaches there. */
  static final int RECORD_SECOND_LINE = 64;

  /**
   * The last byte of a record of up to 128 bytes: such a record (a 60-byte value's is about 83)
   * reaches into a third line when it starts in the last part of one.
   */
  static final int RECORD_LAST_BYTE = 127;

  final RecordView view = new RecordView();

  /** Whether a comparison starts the loads of a candidate's later lines (not in a batch). */
  private final boolean touchesLaterLines;

  private SegmentTable segments;

  /** The location the last comparison found the key at, or 0. */
  private long matched;

  private Segment matchedSegment;

  /** Where the touches' loads go, so that the JIT keeps them; never read. */
  private long digest;

  /**
   * A comparison for single reads ({@code touchesLaterLines}), or for a batch, whose touch pass has
   * loaded the lines already.
   */
  ReadMatch(boolean touchesLaterLines) {
    this.touchesLaterLines = touchesLaterLines;
  }

  /** Readies this for a lookup among {@code segments}; returns this. */
  ReadMatch in(SegmentTable segments) {
    this.segments = segments;
    this.matched = 0;
    this.matchedSegment = null;
    return this;
  }

  @Override
  public boolean matches(long location, MemorySegment source, long offset, long length) {
    matched = 0;
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null) {
      return false;
    }
    long at = LogLocation.offset(location);
    if (touchesLaterLines && segment.cipher() == null && !segment.directReads()) {
      touchLaterLines(segment, at);
    }
    if (!view.parse(segment, at) || !view.keyEquals(source, offset, length)) {
      return false;
    }
    matched = location;
    matchedSegment = segment;
    return true;
  }

  /**
   * The segment of {@code location} if the last comparison found the key there, its record then
   * parsed in {@link #view}; else null.
   */
  Segment parsedAt(long location) {
    return location != 0 && location == matched ? matchedSegment : null;
  }

  private void touchLaterLines(Segment segment, long at) {
    // Bounded by the segment's end, as a parse is: past a sealed segment's end the file may be
    // truncated, and touching a mapped page beyond the file's end is SIGBUS.
    long last = segment.end() - 1;
    if (at < last) {
      MemorySegment memory = segment.memory();
      digest +=
          memory.get(ValueLayout.JAVA_BYTE, Math.min(at + RECORD_SECOND_LINE, last))
              + memory.get(ValueLayout.JAVA_BYTE, Math.min(at + RECORD_LAST_BYTE, last));
    }
  }
}
