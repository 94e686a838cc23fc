package dev.cellar;

import java.util.List;

/**
 * What opening a store found and did: which checkpoint it used, how much of the log it replayed,
 * and every damaged region with file, offset and bytes.
 *
 * @param notes informational lines and tolerated damage (torn tails, salvaged regions)
 * @param fatal damage that makes a strict open fail (a store opened with it was salvaged)
 * @param replayedRecords log records applied after the checkpoint
 * @param replayedBytes bytes of those records
 * @param droppedBytes bytes skipped as torn or damaged
 * @param checkpoint the checkpoint file used, or {@code none}
 * @param elapsedNanos how long recovery took
 */
public record RecoveryReport(
    List<String> notes,
    List<String> fatal,
    long replayedRecords,
    long replayedBytes,
    long droppedBytes,
    String checkpoint,
    long elapsedNanos) {

  public RecoveryReport {
    notes = List.copyOf(notes);
    fatal = List.copyOf(fatal);
  }

  @Override
  public String toString() {
    return "recovery: checkpoint "
        + checkpoint
        + ", replayed "
        + replayedRecords
        + " records ("
        + replayedBytes
        + " bytes), dropped "
        + droppedBytes
        + " bytes in "
        + elapsedNanos / 1_000_000
        + " ms"
        + (notes.isEmpty() ? "" : "\n  " + String.join("\n  ", notes))
        + (fatal.isEmpty() ? "" : "\n  FATAL " + String.join("\n  FATAL ", fatal));
  }
}
