package dev.cellar;

/**
 * When writes reach stable storage; named after Redis's {@code appendfsync}. What each mode can
 * lose on a process crash and on power loss is stated in {@code docs/durability.md}.
 */
public enum Fsync {
  /** Never fsync on the write path; the OS writes back. A process crash loses nothing. */
  NO,
  /** A background agent fsyncs at least once a second. */
  EVERYSEC,
  /** A write returns only after it is on disk; concurrent writers share one fsync. */
  ALWAYS;

  /** Parses {@code no}, {@code everysec} or {@code always}, case-insensitively. */
  public static Fsync parse(String text) {
    for (Fsync mode : values()) {
      if (mode.name().equalsIgnoreCase(text)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown fsync mode '" + text + "': expected no, everysec or always");
  }
}
