package dev.cellar.recovery;

import java.util.ArrayList;
import java.util.List;

/**
 * What an open found and did: which checkpoint it used, how much it replayed, and every damaged
 * region with file, offset and bytes. Damage that blocks the open is listed in {@link #fatal()}.
 */
public final class RecoveryReport {
  private final List<String> notes = new ArrayList<>();
  private final List<String> fatal = new ArrayList<>();
  private long replayedRecords;
  private long replayedBytes;
  private long droppedBytes;
  private String checkpoint = "none";
  private long elapsedNanos;

  void note(String line) {
    notes.add(line);
  }

  void fatal(String line) {
    fatal.add(line);
  }

  void replayed(long records, long bytes) {
    replayedRecords += records;
    replayedBytes += bytes;
  }

  void dropped(long bytes) {
    droppedBytes += bytes;
  }

  void checkpoint(String name) {
    checkpoint = name;
  }

  void elapsed(long nanos) {
    elapsedNanos = nanos;
  }

  /** Informational lines and tolerated damage (torn tails, salvaged regions). */
  public List<String> notes() {
    return List.copyOf(notes);
  }

  /** Damage that makes a strict open fail. */
  public List<String> fatal() {
    return List.copyOf(fatal);
  }

  public long replayedRecords() {
    return replayedRecords;
  }

  public long replayedBytes() {
    return replayedBytes;
  }

  /** Bytes skipped as torn or damaged. */
  public long droppedBytes() {
    return droppedBytes;
  }

  public String checkpoint() {
    return checkpoint;
  }

  public long elapsedNanos() {
    return elapsedNanos;
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
