package dev.cellar.index;

/**
 * Layout of one 8-byte index slot (a {@code long}, stored in native order in memory and
 * little-endian in checkpoints):
 *
 * <pre>
 *   63                42 41                                   0
 *   +-------------------+--------------------------------------+
 *   | fingerprint (22)  | location (42)                         |
 *   +-------------------+--------------------------------------+
 * </pre>
 *
 * The fingerprint is the top 22 bits of the key's 64-bit hash. The table places a key at the slot
 * given by the top bits of its hash, so for tables of up to 2^22 slots the home slot is a function
 * of the fingerprint and growth and deletion never need to re-read keys. Location 0 is an empty
 * slot and location 1 a "moved" marker left in a table being migrated away from; real locations are
 * at least the segment header length.
 *
 * <p>Per-entry overhead: 8 bytes / load factor, 10.7 to 21.3 bytes (load 0.375 to 0.75 with
 * doubling), about 16 on average, plus nothing on the heap.
 */
public final class IndexSlotDescriptor {
  public static final int BYTES = 8;
  public static final int FINGERPRINT_BITS = 22;
  public static final int LOCATION_BITS = 42;
  public static final long LOCATION_MASK = (1L << LOCATION_BITS) - 1;

  /**
   * One past the largest fingerprint: fingerprint ranges are subsets of {@code [0,
   * FINGERPRINT_END)}.
   */
  public static final long FINGERPRINT_END = 1L << FINGERPRINT_BITS;

  public static final long EMPTY = 0L;
  public static final long MOVED = 1L;

  private IndexSlotDescriptor() {}

  public static long fingerprint(long hash) {
    return hash >>> LOCATION_BITS;
  }

  public static long word(long hash, long location) {
    return (fingerprint(hash) << LOCATION_BITS) | location;
  }

  public static long location(long word) {
    return word & LOCATION_MASK;
  }

  public static long fingerprintOf(long word) {
    return word >>> LOCATION_BITS;
  }
}
