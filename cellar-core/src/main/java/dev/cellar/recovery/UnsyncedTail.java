package dev.cellar.recovery;

import dev.cellar.log.Segment;
import dev.cellar.log.SegmentCipher;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentScanner;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The prefix rule of one recovery (docs/format/log.md, "The prefix rule"): which segments form the
 * log's unsynced tail, what seq the next record of the tail must carry, and where the log ended.
 *
 * <p>Why: power loss may write a later write's pages back and lose an earlier one's. Stepping over
 * the gap would keep the later write without the earlier, which breaks what a sequence of writes
 * builds (a collection's size against its elements). In the tail, the log therefore ends at the
 * first gap: a damaged range, or a record whose seq is not the previous one's plus one (the writer
 * hands out seqs with no gaps, so this also finds the lost last page of a segment, which reads as
 * the zeros of a clean end).
 *
 * <p>Used by the scanning thread of a recovery only.
 */
final class UnsyncedTail {
  private final Set<Segment> segments;

  /**
   * The seq the next record of the tail must carry at most ({@link Long#MAX_VALUE}: not known), and
   * exactly if {@link #exact}.
   */
  private long expectNext;

  private boolean exact;

  /** Where the log ended (file, offset and why), or null. */
  private String end;

  private UnsyncedTail(Set<Segment> segments, long expectNext) {
    this.segments = segments;
    this.expectNext = expectNext;
  }

  /**
   * The tail of {@code toReplay} (in id order): its log segments written under the rule ({@link
   * SegmentHeaderDescriptor#FLAG_PREFIX}), still unsealed, with no sealed log segment after them
   * and none the checkpoint names ({@code restored}). The seal and the checkpoint fsync everything
   * before them, so a gap before such a segment is damage, not a lost write. {@code
   * checkpointNextSeq} is the checkpoint's next seq (-1: none), at least the seq of the first
   * record after its replay position.
   */
  static UnsyncedTail of(List<Segment> toReplay, Set<Segment> restored, long checkpointNextSeq) {
    Set<Segment> tail = new HashSet<>();
    for (int i = toReplay.size() - 1; i >= 0; i--) {
      Segment s = toReplay.get(i);
      if (s.kind() != SegmentHeaderDescriptor.KIND_LOG) {
        continue;
      }
      boolean sealed = SegmentHeaderDescriptor.isSealed(s.memory());
      if (!sealed && SegmentHeaderDescriptor.isPrefix(s.memory())) {
        tail.add(s);
      }
      if (sealed || restored.contains(s)) {
        break;
      }
    }
    return new UnsyncedTail(tail, checkpointNextSeq < 0 ? Long.MAX_VALUE : checkpointNextSeq);
  }

  boolean contains(Segment s) {
    return segments.contains(s);
  }

  /** Where the log ended, or null while it has not. */
  String end() {
    return end;
  }

  /** Records that the log ended at {@code where}. */
  void endAt(String where) {
    end = where;
  }

  /**
   * Makes {@code scanner}, over a segment of the tail, take records only while their seqs follow.
   */
  void begin(ReplayScanner scanner) {
    scanner.consecutive(expectNext, exact);
  }

  /**
   * After {@code scanner} stopped in a segment of the tail: null at a clean end, else the gap where
   * the log ends ({@link SegmentScanner#prefixEnd}).
   */
  SegmentScanner.Damage finish(
      ReplayScanner scanner,
      MemorySegment memory,
      SegmentCipher cipher,
      SegmentScanner.Window window,
      long limit) {
    SegmentScanner.Damage gap =
        SegmentScanner.prefixEnd(
            memory,
            cipher,
            window,
            scanner.position(),
            limit,
            scanner.records() > 0 || exact ? scanner.lastSeq() : -1,
            expectNext);
    if (scanner.records() > 0) {
      expectNext = scanner.lastSeq() + 1;
      exact = true;
    }
    return gap;
  }

  /**
   * After a log segment outside the tail that held records: the next seq is not known, since a
   * sealed segment after it may have been compacted away.
   */
  void passed() {
    expectNext = Long.MAX_VALUE;
    exact = false;
  }
}
