package dev.cellar.cli.tool;

import dev.cellar.cli.text.PrintableBytes;
import dev.cellar.inspect.SegmentRecord;
import java.time.Instant;
import java.util.Locale;

/**
 * One log record as one line of text, in columns:
 *
 * <pre>
 * file                       offset        seq type   expiry                      vlen key
 * seg-0000000000000001.log       64          1 PUT    -                             60 "user:1"
 * </pre>
 *
 * Keys (and, on request, values) go last because their width varies; they are quoted and escaped by
 * {@link PrintableBytes} and cut after {@value #MAX_SHOWN_BYTES} bytes.
 */
public final class RecordPrinter {
  static final int MAX_SHOWN_BYTES = 64;
  private static final String COLUMNS = "%-24s %10s %10s %-6s %-24s %8s %s";

  private final boolean values;

  /**
   * @param values whether lines end with a preview of the value
   */
  public RecordPrinter(boolean values) {
    this.values = values;
  }

  public String header() {
    return String.format(
            Locale.ROOT, COLUMNS, "file", "offset", "seq", "type", "expiry", "vlen", "key")
        + (values ? " value" : "");
  }

  public String line(String file, SegmentRecord record) {
    String line =
        String.format(
            Locale.ROOT,
            COLUMNS,
            file,
            record.offset(),
            record.seq(),
            record.isDelete() ? "DELETE" : "PUT",
            record.expireAt() == 0 ? "-" : Instant.ofEpochMilli(record.expireAt()).toString(),
            record.valueLength(),
            PrintableBytes.format(record.key(), MAX_SHOWN_BYTES));
    if (values && !record.isDelete()) {
      line += " " + PrintableBytes.format(record.value(), MAX_SHOWN_BYTES);
    }
    return line;
  }
}
