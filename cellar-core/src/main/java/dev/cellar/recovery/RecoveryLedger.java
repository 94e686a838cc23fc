package dev.cellar.recovery;

import dev.cellar.RecoveryReport;
import java.util.ArrayList;
import java.util.List;

/**
 * What an open finds and does, noted as recovery goes; {@link #report()} is the public, immutable
 * account of it. Damage that blocks the open is listed in {@link #fatal()}.
 */
public final class RecoveryLedger {
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

  /** Damage that makes a strict open fail. */
  public List<String> fatal() {
    return List.copyOf(fatal);
  }

  /** What was found and done so far. */
  public RecoveryReport report() {
    return new RecoveryReport(
        notes, fatal, replayedRecords, replayedBytes, droppedBytes, checkpoint, elapsedNanos);
  }
}
