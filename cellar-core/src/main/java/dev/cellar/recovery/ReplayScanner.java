package dev.cellar.recovery;

import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.RecordView;
import dev.cellar.log.SegmentCipher;
import dev.cellar.log.SegmentScanner;
import java.lang.foreign.MemorySegment;

/**
 * Recovery's reading of one segment's valid records straight into {@link ReplayBatch}es, one batch
 * per call, up to the first position that does not hold a valid record; the rest of the segment,
 * damage included, is left to {@link SegmentScanner}.
 *
 * <h2>Why a loop of its own</h2>
 *
 * The restart after a crash runs in a JVM whose replay code is not compiled yet, and there the
 * general scanner was the slow part: {@link SegmentScanner#scan} is one call per segment (a loop of
 * 700,000 records, with a visitor per record and the damage handling in the same method), so the
 * JIT can only compile it by on-stack replacement, late: in a cold open of 5M records its C2 code
 * arrived 1.5 s after the replay began, at a load of 12. {@link #fill} is a small loop called once
 * per batch, 10,000 times for 5M records, so it and the parse and CRC check it calls are compiled
 * whole, early, as ordinary methods. It also writes each record's fields into the batch directly,
 * with no visitor in between.
 *
 * <h2>Same rules</h2>
 *
 * A record is taken exactly when {@link SegmentScanner} would visit it: it parses, its seq is after
 * the previous record's (in a log segment, whose seqs increase) and its CRC matches. At the first
 * position where that fails, {@link #fill} stops; recovery then scans from {@link #position} with
 * {@link SegmentScanner#scan(MemorySegment, long, long, boolean, boolean, long,
 * SegmentScanner.Visitor)} after {@link #lastSeq}, which finds the clean end of an unsealed
 * segment, or resynchronises and reports the damage as it always has. {@code ReplayScannerTest}
 * compares the two on damaged segments.
 *
 * <p>Used by the scanning thread only.
 */
final class ReplayScanner {
  /** The most bytes of a record's header, which a parse reads before it knows the length. */
  private static final int HEADER_BYTES = 64;

  private final RecordView view = new RecordView();
  private final MemorySegment memory;
  private final SegmentCipher cipher;
  private final SegmentScanner.Window window;
  private final long limit;
  private final boolean increasingSeqs;

  /**
   * The prefix rule (docs/format/log.md): each record's seq must be the previous one's plus one,
   * the first's at most {@link #firstSeqAtMost}. A log's writer gives out seqs with no gaps, so a
   * record that skips one follows records that are lost.
   */
  private boolean consecutive;

  private long firstSeqAtMost = Long.MAX_VALUE;
  private long position;
  private long lastSeq = -1;
  private long minSeq = Long.MAX_VALUE;
  private long maxSeq = -1;
  private long records;

  /** The end of the atomic unit being taken, validated whole; before {@link #position} if none. */
  private long unitEnd = -1;

  /**
   * Scans {@code [start, limit)} of a segment's {@code memory}; {@code increasingSeqs} for logs.
   */
  ReplayScanner(MemorySegment memory, long start, long limit, boolean increasingSeqs) {
    this(memory, null, null, start, limit, increasingSeqs);
  }

  /**
   * As {@link #ReplayScanner(MemorySegment, long, long, boolean)}, decrypting with {@code cipher},
   * over memory whose bytes {@code window} (null: all readable) makes readable as the scan reaches
   * them.
   */
  ReplayScanner(
      MemorySegment memory,
      SegmentCipher cipher,
      SegmentScanner.Window window,
      long start,
      long limit,
      boolean increasingSeqs) {
    view.cipher(cipher);
    this.cipher = cipher;
    this.memory = memory;
    this.window = window;
    this.position = start;
    this.limit = limit;
    this.increasingSeqs = increasingSeqs;
  }

  /**
   * Takes records only while each seq follows the previous by one, the first at most {@code
   * firstSeqAtMost} (or exactly it, with {@code exact}): for an unsealed log segment under the
   * prefix rule, which ends the log where this scanner stops.
   */
  ReplayScanner consecutive(long firstSeqAtMost, boolean exact) {
    this.consecutive = true;
    this.firstSeqAtMost = firstSeqAtMost;
    if (exact) {
      this.lastSeq = firstSeqAtMost - 1;
    }
    return this;
  }

  /**
   * Adds valid records to {@code batch} until it is full (returns true: call again) or the next
   * position holds no valid record or is the limit (returns false).
   */
  boolean fill(ReplayBatch batch) {
    RecordView v = view;
    long p = position;
    long last = lastSeq;
    boolean full = false;
    SegmentScanner.Window w = window;
    while (!full && p < limit) {
      if (w != null) {
        w.ensure(Math.min(limit, p + HEADER_BYTES));
      }
      if (!v.parse(memory, p, limit)) {
        break;
      }
      if (w != null) {
        w.ensure(p + v.length());
      }
      if ((increasingSeqs && v.seq() <= last) || !v.checksumValid()) {
        break;
      }
      if (consecutive && (last >= 0 ? v.seq() != last + 1 : v.seq() > firstSeqAtMost)) {
        break;
      }
      if (increasingSeqs && v.unitBits() != 0 && p >= unitEnd) {
        // The first record of an atomic unit: taken only once the whole unit is found valid, and
        // then record by record (a batch may end inside it). Anything else, a unit cut short or a
        // continuation without its start, is the general scanner's to report.
        long end =
            v.unitBits() == RecordDescriptor.UNIT_MORE_BIT
                ? SegmentScanner.unitEnd(memory, cipher, w, p, limit)
                : -1;
        if (end < 0) {
          break;
        }
        unitEnd = end;
        v.parse(memory, p, limit);
      }
      last = v.seq();
      p += v.length();
      minSeq = Math.min(minSeq, last);
      maxSeq = Math.max(maxSeq, last);
      full = batch.add(v);
      records++;
    }
    position = p;
    lastSeq = last;
    return full;
  }

  /** Offset just past the last record taken; where {@link SegmentScanner} takes over. */
  long position() {
    return position;
  }

  /** Seq of the last record taken, or -1. */
  long lastSeq() {
    return lastSeq;
  }

  /** Lowest seq taken, or Long.MAX_VALUE. */
  long minSeq() {
    return minSeq;
  }

  /** Highest seq taken, or -1. */
  long maxSeq() {
    return maxSeq;
  }

  /** Records taken. */
  long records() {
    return records;
  }
}
