package dev.cellar.stream;

import dev.cellar.CellarException;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import dev.cellar.ChangesRemovedException;
import dev.cellar.log.DirectScan;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentTable;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ChangeStream} read straight from the log segments (kind 1) of a store.
 *
 * <h2>Positions</h2>
 *
 * A position is a sequence number. The log writer gives them out one by one, so the log segments,
 * in id order, hold consecutive sequence numbers with no gap; that is what makes "every change from
 * n on, once, in order" checkable: the stream expects exactly {@code n}, then {@code n + 1}, and
 * anything else is either damage (inside a segment) or a removed segment (between two). Compacted
 * segments (kind 2) are never read: they hold copies of live records with their old sequence
 * numbers, in no order, and without the overwritten values and deletes around them, so they cannot
 * serve a stream. A change whose log segment compaction has deleted is therefore gone for streams,
 * even though its live record survives in a compacted segment: {@link ChangesRemovedException}.
 *
 * <h2>Compaction running alongside</h2>
 *
 * Compaction never changes a log segment; it only makes one obsolete, and a later checkpoint
 * deletes it. The stream pins the one segment its current batch reads ({@link Segment#tryPin}), so
 * a deletion that comes meanwhile skips that segment (the next checkpoint deletes it); between
 * batches nothing is pinned, so a stream, however long it lives, holds back at most one segment for
 * at most one batch. A segment deleted between batches fails the next pin, which is reported as
 * removed changes. (Pinning the whole store, as a scan cursor does, would stop deletion for as long
 * as a busy stream lives.)
 *
 * <h2>Following the tail</h2>
 *
 * When the stream has delivered everything the {@link ChangeHorizon} allows, {@link #poll} sleeps
 * in {@link ChangeHorizon#awaitVisible} until the log grows. The horizon is the store's fsync
 * policy: durable changes under {@code always}, appended ones otherwise.
 *
 * <p>Not thread-safe: owned by the thread that polls it.
 */
public final class LogChangeStream implements ChangeStream {
  private final SegmentTable segments;
  private final ChangeHorizon horizon;
  private final SegmentChangeBatch batch = new SegmentChangeBatch();
  private final RecordView view = new RecordView();

  /** The log segment that holds (or will hold) {@link #position}; null until located. */
  private Segment segment;

  /** Where the record with {@link #position} starts in {@link #segment}. */
  private long offset;

  /** The next sequence number to deliver, while no batch is in use. */
  private long position;

  /** Whether {@link #segment} is pinned and {@link #batch} reads it. */
  private boolean inBatch;

  private boolean closed;

  /**
   * Opens a stream from {@code fromSeq} (0 and 1 both mean the first change).
   *
   * @throws ChangesRemovedException if the log no longer holds the changes from {@code fromSeq}
   */
  public LogChangeStream(SegmentTable segments, ChangeHorizon horizon, long fromSeq) {
    this.segments = segments;
    this.horizon = horizon;
    long appended = horizon.appendedSeq();
    if (fromSeq < 0 || fromSeq > appended + 1) {
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT,
          "change stream position "
              + fromSeq
              + " is outside the log, which holds positions up to "
              + appended
              + "; start from 0 (everything the log holds) to "
              + (appended + 1)
              + " (only new changes)");
    }
    this.position = Math.max(1, fromSeq);
    // Located now, so that a position compaction has removed fails at once, not at the first poll.
    locate();
    segment.unpin();
  }

  @Override
  public ChangeBatch poll(Duration timeout) {
    if (closed) {
      throw new IllegalStateException("change stream is closed");
    }
    release();
    horizon.checkOpen();
    long timeoutNanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
    long start = System.nanoTime();
    while (true) {
      long visible = horizon.visibleSeq();
      if (visible >= position && fill(visible)) {
        return batch;
      }
      long remaining = timeoutNanos - (System.nanoTime() - start);
      if (remaining <= 0 || Thread.currentThread().isInterrupted()) {
        return batch;
      }
      if (visible < position) {
        horizon.awaitVisible(position, remaining);
        horizon.checkOpen();
      } else {
        Thread.yield(); // a segment roll in flight: the next segment is being added to the table
      }
    }
  }

  private static long saturatedNanos(Duration timeout) {
    try {
      return timeout.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * Starts the batch at the stream's position, moving on to later log segments as earlier ones are
   * used up; false if the record at the position is not yet reachable (a roll in flight).
   */
  private boolean fill(long visible) {
    if (segment == null) {
      locate();
    } else if (!segment.tryPin()) {
      throw removed();
    }
    while (true) {
      Segment.State state = segment.state(); // before end(): a segment past ACTIVE has its last end
      long end = segment.end();
      if (offset < end) {
        batch.start(segment, offset, end, position, visible);
        inBatch = true;
        return true;
      }
      if (state == Segment.State.ACTIVE) {
        segment.unpin();
        throw new IllegalStateException(
            "change stream: sequence "
                + position
                + " is visible but not in the active segment "
                + segment
                + " nor after it");
      }
      Segment next = nextLogSegment(segment);
      if (next == null) {
        segment.unpin();
        return false;
      }
      if (!next.tryPin()) {
        segment.unpin();
        throw removed();
      }
      long first = firstSeq(next);
      if (first != -1 && first != position) {
        next.unpin();
        segment.unpin();
        if (first > position) {
          throw removed(); // a log segment between the two was compacted away
        }
        throw new IllegalStateException(
            "log segment " + next + " starts at sequence " + first + ", before " + position);
      }
      segment.unpin();
      segment = next;
      offset = next.dataStart();
    }
  }

  /**
   * Finds the log segment holding {@link #position} and the record's offset in it; leaves that
   * segment pinned.
   */
  private void locate() {
    long appended = horizon.appendedSeq(); // before the search: the log may grow meanwhile
    List<Segment> logs = logSegments();
    Segment chosen = null;
    for (Segment s : logs) {
      if (!s.tryPin()) {
        continue; // being deleted
      }
      long first = firstSeq(s);
      if (first != -1 && first <= position) {
        if (chosen != null) {
          chosen.unpin();
        }
        chosen = s; // the newest segment starting at or before the position, so far
      } else {
        s.unpin();
        if (first != -1) {
          break; // every later segment starts later still
        }
      }
    }
    if (chosen == null) {
      // No log segment starts at or before the position. Fine only if the position is past the
      // log: then it is in the newest segment, or a later one, once appended.
      if (position <= appended || logs.isEmpty() || !logs.getLast().tryPin()) {
        throw removed();
      }
      chosen = logs.getLast();
    }
    segment = chosen;
    offset = chosen.dataStart();
    long end = chosen.end();
    view.cipher(chosen.cipher()).dictionary(chosen.dictionary());
    // A segment read with O_DIRECT is walked with O_DIRECT too: through the mapping, the walk would
    // fault every page of it into the page cache to read the headers.
    try (DirectScan walk = chosen.directReads() ? DirectScan.open(chosen, offset) : null) {
      MemorySegment memory = walk != null ? walk.memory() : chosen.readOnlyMemory();
      while (offset < end) {
        if (walk != null) {
          walk.ensure(Math.min(end, offset + 64));
        }
        if (!view.parse(memory, offset, end)) {
          break;
        }
        if (view.seq() >= position) {
          return;
        }
        offset += view.length();
        if (walk != null) {
          walk.releaseBefore(offset);
        }
      }
    } catch (java.io.UncheckedIOException e) {
      chosen.unpin();
      throw new dev.cellar.StoreIOException(
          "change stream cannot read " + chosen.path().getFileName() + ": " + e.getMessage(),
          e.getCause());
    }
    // At the segment's end, or at damage, which the first batch reports with its offset.
  }

  /** The log segments (kind 1), by id: in sequence order. */
  private List<Segment> logSegments() {
    List<Segment> logs = new ArrayList<>();
    for (Segment s : segments.all()) {
      if (s.kind() == SegmentHeaderDescriptor.KIND_LOG) {
        logs.add(s);
      }
    }
    return logs;
  }

  private Segment nextLogSegment(Segment after) {
    Segment next = null;
    for (Segment s : segments.all()) {
      if (s.kind() == SegmentHeaderDescriptor.KIND_LOG && s.id() > after.id()) {
        if (next == null || s.id() < next.id()) {
          next = s;
        }
      }
    }
    return next;
  }

  /** The sequence number of a pinned segment's first record, or -1 if it has none. */
  private long firstSeq(Segment s) {
    long end = s.end();
    if (end <= s.dataStart()) {
      return -1;
    }
    view.cipher(s.cipher()).dictionary(s.dictionary());
    if (view.parse(s.readOnlyMemory(), s.dataStart(), end)) {
      return view.seq();
    }
    // A damaged first record: the seq range the store keeps in memory; the batch reports damage.
    return s.minSeq() == Long.MAX_VALUE ? -1 : s.minSeq();
  }

  private ChangesRemovedException removed() {
    return new ChangesRemovedException(position, oldestAvailable());
  }

  /**
   * The oldest position a stream could start from now: the first sequence number of the newest
   * unbroken run of log segments, or one past the log if no log segment holds a change.
   */
  private long oldestAvailable() {
    long oldest = horizon.appendedSeq() + 1;
    List<Segment> logs = logSegments();
    for (int i = logs.size() - 1; i >= 0; i--) {
      Segment s = logs.get(i);
      if (!s.tryPin()) {
        break;
      }
      try {
        long first = firstSeq(s);
        if (first == -1) {
          continue;
        }
        if (s.maxSeq() + 1 < oldest) {
          break;
        }
        oldest = first;
      } finally {
        s.unpin();
      }
    }
    return oldest;
  }

  /** Ends the current batch: the stream resumes where its cursor stopped. */
  private void release() {
    if (inBatch) {
      position = batch.nextSeq();
      offset = batch.cursor();
      inBatch = false;
      segment.unpin();
    }
    batch.clear();
  }

  @Override
  public long position() {
    return inBatch ? batch.nextSeq() : position;
  }

  @Override
  public void close() {
    if (!closed) {
      release();
      closed = true;
    }
  }
}
