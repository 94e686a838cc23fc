package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Walks the records of one segment, verifying each CRC, and describes whatever is not a valid
 * record: torn tails, holes, corruption. It never throws on bad bytes and never reads past its
 * limit, so it is safe on arbitrary files.
 *
 * <h2>Rules (also in docs/format/log.md)</h2>
 *
 * <ul>
 *   <li>A record that parses and whose CRC matches is valid and is visited.
 *   <li>At an invalid position the scanner resynchronises: it looks for the next offset at which a
 *       valid record starts and reports the bytes in between as one damaged region.
 *   <li>Unwritten space is zeros. In an unsealed segment, zeros from some offset to the limit are
 *       the clean end of the log, not damage.
 *   <li>Damage after the last valid record of an unsealed segment is a torn tail.
 * </ul>
 */
public final class SegmentScanner {
  private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[1 << 16]);

  private SegmentScanner() {}

  /** Called for each valid record; the view is reused between calls. */
  public interface Visitor {
    void record(RecordView record);
  }

  /**
   * Bytes of the scanned memory that become readable as the scan asks for them ({@link
   * DirectScan}): the scan calls {@link #ensure} before it reads any byte.
   */
  public interface Window {
    /** Makes {@code [0, to)} readable (or as much of it as there is). */
    void ensure(long to);
  }

  /** The most bytes of a record's header, which a parse reads before it knows the length. */
  private static final int HEADER_BYTES = 64;

  /** A region that held no valid record. */
  public record Damage(long offset, long length, String reason) {}

  /**
   * The outcome of a scan.
   *
   * @param validEnd offset just past the last valid record (or the start, if none)
   * @param records number of valid records
   * @param damage regions skipped, in order; those at or past validEnd form the torn tail
   */
  public record Result(long validEnd, long records, List<Damage> damage) {
    /** Damaged regions before the last valid record. */
    public List<Damage> holes() {
      return damage.stream().filter(d -> d.offset() < validEnd).toList();
    }

    /** Bytes between the last valid record and the limit that are not clean zeros. */
    public long tornTailBytes() {
      return damage.stream().filter(d -> d.offset() >= validEnd).mapToLong(Damage::length).sum();
    }
  }

  /**
   * Scans {@code [start, limit)} of {@code memory}.
   *
   * @param sealed whether the range is a sealed segment's data, where zeros are damage too
   */
  public static Result scan(
      MemorySegment memory, long start, long limit, boolean sealed, Visitor visitor) {
    return scan(memory, start, limit, sealed, false, visitor);
  }

  /**
   * As {@link #scan(MemorySegment, long, long, boolean, Visitor)}; with {@code increasingSeqs} (log
   * segments, written in seq order) a record whose seq does not exceed the previous one is damage,
   * and a record found by resynchronising must have a seq that fits the gap: no more records can
   * have been lost than fit in the skipped bytes. That keeps a record-shaped byte string inside a
   * value from being taken for a record after a hole.
   */
  public static Result scan(
      MemorySegment memory,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      Visitor visitor) {
    return scan(memory, start, limit, sealed, increasingSeqs, null, visitor);
  }

  /**
   * As {@link #scan(MemorySegment, long, long, boolean, boolean, Visitor)}, but a PUT record whose
   * offset {@code knownDead} accepts is stepped over unverified and not visited: its CRC is not
   * checked and its key and value are not read. For compaction, which drops such records anyway. A
   * damaged header is still found: a record that does not parse is damage whatever the predicate
   * says, and a wrong length read from a damaged header lands the scan on bytes that do not parse.
   */
  public static Result scan(
      MemorySegment memory,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      LongPredicate knownDead,
      Visitor visitor) {
    return scan(memory, start, limit, sealed, increasingSeqs, knownDead, -1, visitor);
  }

  /**
   * As {@link #scan(MemorySegment, long, long, boolean, boolean, Visitor)}, continuing a scan that
   * has already taken the valid records before {@code start}, the last of them with seq {@code
   * afterSeq}: with {@code increasingSeqs} the first record must come after it. For recovery, which
   * reads the valid records in a loop of its own and hands the rest of the segment to this scan.
   */
  public static Result scan(
      MemorySegment memory,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      long afterSeq,
      Visitor visitor) {
    return scan(memory, start, limit, sealed, increasingSeqs, null, afterSeq, visitor);
  }

  private static Result scan(
      MemorySegment memory,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      LongPredicate knownDead,
      long afterSeq,
      Visitor visitor) {
    return scan(memory, null, start, limit, sealed, increasingSeqs, knownDead, afterSeq, visitor);
  }

  /**
   * The scan in full: {@code [start, limit)} of a segment's {@code memory}, whose records are
   * encrypted with {@code cipher} if it is not null (a record is then valid only if its tag matches
   * too, and its key and value are visited decrypted); the other parameters as in the forms above
   * ({@code knownDead} null for none, {@code afterSeq} -1 for none).
   */
  public static Result scan(
      MemorySegment memory,
      SegmentCipher cipher,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      LongPredicate knownDead,
      long afterSeq,
      Visitor visitor) {
    return scan(
        memory, cipher, null, start, limit, sealed, increasingSeqs, knownDead, afterSeq, visitor);
  }

  /**
   * As {@link #scan(MemorySegment, SegmentCipher, long, long, boolean, boolean, LongPredicate,
   * long, Visitor)}, for a visitor that reads values of a compressed segment: {@code dictionary}
   * (null if not compressed) decompresses them.
   */
  public static Result scan(
      MemorySegment memory,
      SegmentCipher cipher,
      dev.cellar.compress.ValueDictionary dictionary,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      LongPredicate knownDead,
      long afterSeq,
      Visitor visitor) {
    return scan(
        memory,
        cipher,
        dictionary,
        start,
        limit,
        sealed,
        increasingSeqs,
        knownDead,
        afterSeq,
        null,
        visitor);
  }

  /**
   * The full form: as {@link #scan(MemorySegment, SegmentCipher,
   * dev.cellar.compress.ValueDictionary, long, long, boolean, boolean, LongPredicate, long,
   * Visitor)}, over memory whose bytes {@code window} (null: all readable) makes readable as the
   * scan reaches them.
   */
  public static Result scan(
      MemorySegment memory,
      SegmentCipher cipher,
      dev.cellar.compress.ValueDictionary dictionary,
      long start,
      long limit,
      boolean sealed,
      boolean increasingSeqs,
      LongPredicate knownDead,
      long afterSeq,
      Window window,
      Visitor visitor) {
    RecordView view = new RecordView().cipher(cipher).dictionary(dictionary);
    List<Damage> damage = new ArrayList<>();
    long position = start;
    long validEnd = start;
    long records = 0;
    long lastSeq = afterSeq;
    while (position < limit) {
      if (window != null) {
        window.ensure(Math.min(limit, position + HEADER_BYTES));
      }
      boolean parsed = view.parse(memory, position, limit);
      if (parsed && window != null) {
        window.ensure(position + view.length());
      }
      boolean inOrder = parsed && (!increasingSeqs || view.seq() > lastSeq);
      if (inOrder && increasingSeqs && view.unitBits() != 0) {
        // An atomic unit: visited whole once every record of it is found valid, else not at all.
        long end =
            view.unitBits() == RecordDescriptor.UNIT_MORE_BIT
                ? unitEnd(memory, cipher, window, position, limit)
                : -1;
        if (end > 0) {
          for (long p = position; p < end; p += view.length()) {
            view.parse(memory, p, end);
            if (knownDead == null || view.isDelete() || !knownDead.test(p)) {
              visitor.record(view);
              records++;
            }
            lastSeq = view.seq();
          }
          position = end;
          validEnd = end;
          continue;
        }
        inOrder = false; // a unit cut short, or a continuation without its start: damage
      }
      if (inOrder && knownDead != null && !view.isDelete() && knownDead.test(position)) {
        lastSeq = view.seq();
        position += view.length();
        validEnd = position;
        continue;
      }
      if (inOrder && view.checksumValid()) {
        visitor.record(view);
        records++;
        lastSeq = view.seq();
        position += view.length();
        validEnd = position;
        continue;
      }
      if (window != null) {
        window.ensure(limit); // damage: what follows is searched to the end
      }
      if (!sealed && allZero(memory, position, limit)) {
        break;
      }
      long next = resync(memory, position + 1, limit, view, increasingSeqs, lastSeq);
      long length = next - position;
      if (next == limit && !sealed) {
        // A torn tail: count the bytes up to the last written one, not the unwritten zeros after.
        length = lastNonZero(memory, position, limit) + 1 - position;
      }
      String reason = reason(memory, cipher, position, limit, view, increasingSeqs, lastSeq);
      damage.add(new Damage(position, length, reason));
      position = next;
    }
    return new Result(validEnd, records, damage);
  }

  /** Why the bytes at {@code position} are not a record the scan takes. */
  private static String reason(
      MemorySegment memory,
      SegmentCipher cipher,
      long position,
      long limit,
      RecordView view,
      boolean increasingSeqs,
      long lastSeq) {
    if (!view.parse(memory, position, limit) || !view.checksumValid()) {
      return describe(memory, cipher, position, limit);
    }
    if (increasingSeqs && view.seq() > lastSeq) {
      return (view.unitBits() & RecordDescriptor.UNIT_CONTINUES_BIT) != 0
          ? "continuation of an atomic unit without its first record"
          : "atomic unit cut short (a crash during its write)";
    }
    return "sequence " + view.seq() + " not after " + lastSeq + " (out of order)";
  }

  /**
   * The end of the atomic unit whose first record starts at {@code start}, or -1 if it is not
   * complete: every record up to one without {@link RecordDescriptor#UNIT_MORE_BIT} must parse, be
   * marked as a continuation, carry the next seq and have a matching CRC. The writer copies a unit
   * into the log in one piece with consecutive seqs, so anything else is a unit a crash cut short.
   */
  public static long unitEnd(
      MemorySegment memory, SegmentCipher cipher, Window window, long start, long limit) {
    RecordView v = new RecordView().cipher(cipher);
    long p = start;
    long seq = -1;
    while (p < limit) {
      if (window != null) {
        window.ensure(Math.min(limit, p + HEADER_BYTES));
      }
      if (!v.parse(memory, p, limit)) {
        return -1;
      }
      if (window != null) {
        window.ensure(p + v.length());
      }
      int bits = v.unitBits();
      boolean first = p == start;
      if (first
          ? bits != RecordDescriptor.UNIT_MORE_BIT
          : (bits & RecordDescriptor.UNIT_CONTINUES_BIT) == 0 || v.seq() != seq + 1) {
        return -1;
      }
      if (!v.checksumValid()) {
        return -1;
      }
      seq = v.seq();
      p += v.length();
      if ((bits & RecordDescriptor.UNIT_MORE_BIT) == 0) {
        return p;
      }
    }
    return -1;
  }

  /**
   * The prefix rule's end of an unsealed log segment whose consecutive valid records stop at {@code
   * position} (docs/format/log.md, "The prefix rule"): null if only zeros follow up to {@code
   * limit} (the clean end of the log), else the torn tail from there to the last non-zero byte,
   * which ends the log. {@code lastSeq} is the seq of the record before {@code position} (-1: none
   * known), {@code firstSeqAtMost} what the first record may carry when there is none.
   */
  public static Damage prefixEnd(
      MemorySegment memory,
      SegmentCipher cipher,
      Window window,
      long position,
      long limit,
      long lastSeq,
      long firstSeqAtMost) {
    if (window != null) {
      window.ensure(limit);
    }
    if (allZero(memory, position, limit)) {
      return null;
    }
    long length = lastNonZero(memory, position, limit) + 1 - position;
    RecordView view = new RecordView().cipher(cipher);
    String reason;
    if (view.parse(memory, position, limit) && view.checksumValid()) {
      long next = lastSeq >= 0 ? lastSeq + 1 : firstSeqAtMost;
      if (view.seq() > next) {
        reason =
            "sequence "
                + view.seq()
                + " where "
                + next
                + (lastSeq >= 0 ? " was next" : " at most was next")
                + ": the records between were lost";
      } else {
        reason = reason(memory, cipher, position, limit, view, true, lastSeq);
      }
    } else {
      reason = describe(memory, cipher, position, limit);
    }
    return new Damage(position, length, reason);
  }

  /** The offset just past the last non-zero byte of {@code [from, limit)}; {@code from} if none. */
  public static long writtenEnd(MemorySegment memory, long from, long limit) {
    if (from >= limit) {
      return from;
    }
    long last = lastNonZero(memory, from, limit);
    return last == from && memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, from) == 0
        ? from
        : last + 1;
  }

  private static long lastNonZero(MemorySegment memory, long from, long limit) {
    long end = limit;
    while (end > from) {
      long n = Math.min(ZEROS.byteSize(), end - from);
      if (MemorySegment.mismatch(memory, end - n, end, ZEROS, 0, n) == -1) {
        end -= n;
        continue;
      }
      for (long p = end - 1; p >= end - n; p--) {
        if (memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, p) != 0) {
          return p;
        }
      }
    }
    return from;
  }

  private static String describe(
      MemorySegment memory, SegmentCipher cipher, long position, long limit) {
    if (limit - position < RecordDescriptor.MIN_LENGTH) {
      return "truncated record";
    }
    if (RecordDescriptor.isBlank(memory, position)) {
      return "zeroed bytes";
    }
    RecordView view = new RecordView().cipher(cipher);
    return view.parse(memory, position, limit) ? "checksum mismatch" : "malformed record header";
  }

  /**
   * The next offset from {@code from} where a valid record starts, or {@code limit}. In a log
   * segment ({@code increasingSeqs}) that excludes the continuation of an atomic unit, whose start
   * is then lost, and, after a record of seq {@code lastSeq} (-1: none), a seq that cannot follow.
   */
  private static long resync(
      MemorySegment memory,
      long from,
      long limit,
      RecordView view,
      boolean increasingSeqs,
      long lastSeq) {
    for (long p = from; p + RecordDescriptor.MIN_LENGTH <= limit; p++) {
      int type =
          memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, p + RecordDescriptor.TYPE_OFFSET)
              & 0xFF;
      if (!RecordDescriptor.validTypeByte(type)) {
        continue;
      }
      if (view.parse(memory, p, limit) && view.checksumValid()) {
        if (increasingSeqs && (view.unitBits() & RecordDescriptor.UNIT_CONTINUES_BIT) != 0) {
          continue; // the middle of a unit whose start is lost: part of the damage
        }
        if (!increasingSeqs || lastSeq < 0) {
          return p;
        }
        long maxLost = (p - from + 1) / RecordDescriptor.MIN_LENGTH + 1;
        if (view.seq() > lastSeq && view.seq() <= lastSeq + maxLost) {
          return p;
        }
      }
    }
    return limit;
  }

  /** Whether every byte of {@code [from, limit)} is zero. */
  public static boolean allZero(MemorySegment memory, long from, long limit) {
    for (long p = from; p < limit; p += ZEROS.byteSize()) {
      long n = Math.min(ZEROS.byteSize(), limit - p);
      if (MemorySegment.mismatch(memory, p, p + n, ZEROS, 0, n) != -1) {
        return false;
      }
    }
    return true;
  }
}
