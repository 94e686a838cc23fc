package dev.cellar;

/**
 * How a store reads its files ({@code CellarOptions.io}).
 *
 * <p>{@link #BUFFERED} reads every segment through its memory mapping, and so through the kernel's
 * page cache: nothing to size, and the fastest while the data fits in memory. {@link #DIRECT} reads
 * sealed segments with {@code O_DIRECT} through the store's own off-heap read cache ({@code
 * CellarOptions.readCacheBytes}, S3-FIFO), and drops their pages from the page cache: for data
 * larger than memory, where the page cache would spend kernel CPU churning pages the next read does
 * not want. It also replays the log at open and scans compaction's victims with {@code O_DIRECT} in
 * large requests, writes compaction's outputs with {@code O_DIRECT}, and, under {@code
 * Fsync.ALWAYS}, appends the log with {@code O_DIRECT} (each sync writes the new blocks out before
 * it acknowledges); under {@code NO} and {@code EVERYSEC} the segment being written stays in the
 * page cache, so that a crash of the process loses nothing acknowledged.
 */
public enum IoMode {
  BUFFERED,
  DIRECT;

  /** Parses {@code buffered} or {@code direct}, case-insensitively. */
  public static IoMode parse(String text) {
    for (IoMode m : values()) {
      if (m.name().equalsIgnoreCase(text)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "unknown io mode '" + text + "': expected buffered or direct");
  }

  /** The name the options use: {@code buffered} or {@code direct}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
