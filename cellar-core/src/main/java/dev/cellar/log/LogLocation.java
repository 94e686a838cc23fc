package dev.cellar.log;

/**
 * A record's address as the index stores it: 42 bits, {@code slot << 30 | offset}, where slot is
 * the segment's position in the {@link SegmentTable} (reused after the segment is deleted) and
 * offset is the byte offset inside the segment. Offsets below the segment header are never records,
 * so a location is never 0 (the index's "empty").
 */
public final class LogLocation {
  public static final int OFFSET_BITS = 30;
  public static final int SLOT_BITS = 12;
  public static final int MAX_SLOTS = 1 << SLOT_BITS;
  public static final long BITS = OFFSET_BITS + SLOT_BITS;
  private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;

  private LogLocation() {}

  public static long of(int slot, long offset) {
    return ((long) slot << OFFSET_BITS) | offset;
  }

  public static int slot(long location) {
    return (int) (location >>> OFFSET_BITS);
  }

  public static long offset(long location) {
    return location & OFFSET_MASK;
  }
}
