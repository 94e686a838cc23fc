package dev.cellar.cli.tool;

import dev.cellar.cli.tool.Finding.Severity;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.SegmentScan;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks one segment file: its header, then every record's framing and CRC, through the core's
 * scanner (through {@link SegmentFile#scan}) so that records are judged exactly as recovery judges
 * them.
 *
 * <h2>What is an error</h2>
 *
 * The crash model: a segment is sealed only after an fsync, and a checkpoint is published only
 * after the log up to its replay position is fsynced. Bytes made durable either way cannot be
 * damaged by a crash, so any damage there (a bad CRC, zeros, a file that ends too soon) is an
 * {@link Severity#ERROR}: the disk or something other than Cellar changed the file. Past those
 * points lies the unsynced tail a crash may tear or, after power loss, leave with holes; recovery
 * cuts the tail (at its first hole, under the prefix rule of docs/format/log.md, or skips holes in
 * segments written before it), so those are {@link Severity#WARNING}s.
 *
 * <p>Recovery itself only distinguishes sealed from unsealed segments. Using the checkpoint as well
 * matters because a segment can be durable yet unsealed (the store seals full segments in the
 * background and may close before it has), and because a file cut short before the replay position
 * loses records the index still points at.
 *
 * <p>A header that cannot be read is an error, except for an all-zero file: a segment whose
 * creation a crash interrupted, which the next open deletes.
 */
public final class SegmentVerifier {
  private SegmentVerifier() {}

  /**
   * What one segment holds and what is wrong with it.
   *
   * @param state {@code sealed}, {@code unsealed} (either maybe with {@code compacted}), or {@code
   *     unreadable}
   * @param scannedBytes bytes of the file the scan covered, header included
   */
  public record Result(
      String name, String state, RecordCounts counts, long scannedBytes, List<Finding> findings) {}

  /**
   * Checks {@code segment}, showing each valid record to {@code visitor} as well.
   *
   * @param durable the replay position of the checkpoint an open would use
   */
  public static Result verify(
      SegmentFile segment, ReplayPosition durable, SegmentFile.RecordVisitor visitor) {
    String name = segment.name();
    if (segment.headerProblem() != null) {
      return unreadable(segment);
    }
    List<Finding> findings = new ArrayList<>();
    if (segment.missingBytes() > 0) {
      findings.add(
          Finding.ofRegion(
              Severity.ERROR,
              name,
              segment.size(),
              segment.missingBytes(),
              "file shorter than its sealed length " + segment.declaredEnd() + " (truncated?)"));
    }
    if (segment.bytesPastEnd() > 0) {
      findings.add(
          Finding.ofRegion(
              Severity.NOTE,
              name,
              segment.declaredEnd(),
              segment.bytesPastEnd(),
              "past the sealed length, ignored (a crash came between sealing and trimming the file)"));
    }
    RecordCounts counts = new RecordCounts();
    SegmentScan scan =
        segment.scan(
            record -> {
              counts.add(record);
              visitor.record(record);
            });
    for (SegmentScan.Damage d : scan.damage()) {
      findings.add(classify(segment, scan, durable, d));
    }
    if (!segment.sealed()) {
      checkAgainstCheckpoint(segment, scan, durable, findings);
    }
    String state =
        (segment.sealed() ? "sealed" : "unsealed")
            + (segment.compacted() ? ", compacted" : "")
            + (segment.encrypted() ? ", key " + segment.keyId() : "")
            + compression(segment);
    if (segment.codecProblem() != null) {
      findings.add(
          Finding.ofFile(
              Severity.ERROR,
              name,
              "codec block unusable ("
                  + segment.codecProblem()
                  + "): its compressed values cannot be read"));
    }
    return new Result(name, state, counts, segment.scanLimit(), findings);
  }

  /** The codec and dictionary of a compressed segment, as its state shows them. */
  private static String compression(SegmentFile segment) {
    if (!segment.compressed()) {
      return "";
    }
    dev.cellar.Compression codec = segment.compression();
    return codec == null
        ? ", compressed (codec block unusable)"
        : ", "
            + codec.label()
            + (segment.dictionaryBytes() == 0
                ? " without a dictionary"
                : " dictionary "
                    + Long.toHexString(segment.dictionaryId())
                    + " ("
                    + segment.dictionaryBytes()
                    + " bytes)");
  }

  private static Result unreadable(SegmentFile segment) {
    Finding finding =
        segment.size() > 0 && segment.blank()
            ? Finding.ofFile(
                Severity.WARNING,
                segment.name(),
                "all zeros: a crash interrupted its creation; it never held a record (deleted on next open)")
            : Finding.ofRegion(
                Severity.ERROR,
                segment.name(),
                0,
                segment.size(),
                "unusable header, records not checked: " + segment.headerProblem());
    return new Result(
        segment.name(), "unreadable", new RecordCounts(), segment.size(), List.of(finding));
  }

  private static Finding classify(
      SegmentFile segment, SegmentScan scan, ReplayPosition durable, SegmentScan.Damage d) {
    if (segment.sealed()) {
      return Finding.ofRegion(
          Severity.ERROR, segment.name(), d.offset(), d.length(), d.reason() + " in sealed data");
    }
    if (durable.covers(segment.id(), d.offset())) {
      return Finding.ofRegion(
          Severity.ERROR,
          segment.name(),
          d.offset(),
          d.length(),
          d.reason()
              + " in data made durable before "
              + durable.checkpoint()
              + " (unsealed segment)");
    }
    String what =
        d.offset() >= scan.validEnd()
            ? "torn tail (would be truncated on open)"
            : segment.prefix()
                ? "gap in the unsynced tail (the log would end here on open, and the records after"
                    + " it be dropped)"
                : "hole in an unsealed segment (would be skipped on open)";
    return Finding.ofRegion(
        Severity.WARNING, segment.name(), d.offset(), d.length(), what + ": " + d.reason());
  }

  /**
   * An unsealed segment whose records end before the checkpoint's replay position has lost them.
   */
  private static void checkAgainstCheckpoint(
      SegmentFile segment, SegmentScan scan, ReplayPosition durable, List<Finding> findings) {
    boolean damagedTail = scan.tornTailBytes() > 0;
    if (segment.id() == durable.segmentId() && scan.validEnd() < durable.offset() && !damagedTail) {
      findings.add(
          Finding.ofRegion(
              Severity.ERROR,
              segment.name(),
              scan.validEnd(),
              durable.offset() - scan.validEnd(),
              "records end before the replay position of "
                  + durable.checkpoint()
                  + ": durable records are missing (file cut short or zeroed?)"));
    } else if (segment.id() < durable.segmentId()) {
      findings.add(
          Finding.ofFile(
              Severity.NOTE,
              segment.name(),
              "unsealed, though "
                  + durable.checkpoint()
                  + " covers all of it; the next open seals it"));
    }
  }
}
