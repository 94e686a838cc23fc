package dev.cellar.inspect;

import dev.cellar.log.SegmentScanner;
import java.util.List;

/**
 * The outcome of scanning a segment file's records, as recovery would scan them.
 *
 * @param validEnd offset just past the last valid record (or the start of the records, if none)
 * @param records number of valid records
 * @param damage regions that held no valid record, in order; those at or past validEnd form the
 *     torn tail
 */
public record SegmentScan(long validEnd, long records, List<Damage> damage) {

  /**
   * A region that held no valid record.
   *
   * @param reason what was found there, such as {@code checksum mismatch} or {@code zeroed bytes}
   */
  public record Damage(long offset, long length, String reason) {}

  static SegmentScan of(SegmentScanner.Result result) {
    return new SegmentScan(
        result.validEnd(),
        result.records(),
        result.damage().stream().map(d -> new Damage(d.offset(), d.length(), d.reason())).toList());
  }

  /** Damaged regions before the last valid record. */
  public List<Damage> holes() {
    return damage.stream().filter(d -> d.offset() < validEnd).toList();
  }

  /** Bytes between the last valid record and the limit that are not clean zeros. */
  public long tornTailBytes() {
    return damage.stream().filter(d -> d.offset() >= validEnd).mapToLong(Damage::length).sum();
  }
}
