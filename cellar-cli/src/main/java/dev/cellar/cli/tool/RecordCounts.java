package dev.cellar.cli.tool;

import dev.cellar.inspect.SegmentRecord;
import java.util.Locale;

/** Tallies of valid records, per segment and for a whole store. Single-threaded. */
public final class RecordCounts {
  private long records;
  private long puts;
  private long deletes;
  private long expiring;
  private long bytes;

  /** Counts one valid record. */
  public void add(SegmentRecord record) {
    records++;
    if (record.isDelete()) {
      deletes++;
    } else {
      puts++;
      if (record.expireAt() != 0) {
        expiring++;
      }
    }
    bytes += record.length();
  }

  public void add(RecordCounts other) {
    records += other.records;
    puts += other.puts;
    deletes += other.deletes;
    expiring += other.expiring;
    bytes += other.bytes;
  }

  public long records() {
    return records;
  }

  public long puts() {
    return puts;
  }

  public long deletes() {
    return deletes;
  }

  /** Puts that carry an expiry. */
  public long expiring() {
    return expiring;
  }

  /** Bytes of valid records, headers included. */
  public long bytes() {
    return bytes;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%,d records (%,d puts%s, %,d deletes)",
        records,
        puts,
        expiring == 0 ? "" : String.format(Locale.ROOT, " of which %,d expiring", expiring),
        deletes);
  }
}
