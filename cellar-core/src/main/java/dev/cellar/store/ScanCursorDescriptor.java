package dev.cellar.store;

import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_BITS;
import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_END;

import dev.cellar.CellarException;
import dev.cellar.ScanPage;

/**
 * Layout of the cursor of a resumable scan ({@link dev.cellar.Cellar#scanPage}), a position in the
 * store's hash space (see {@code docs/format/index.md#scan-cursor}):
 *
 * <pre>
 *   63                        34 33            22 21                        0
 *   +---------------------------+----------------+---------------------------+
 *   | zero (30)                 | shard (12)     | fingerprint bound (22)    |
 *   +---------------------------+----------------+---------------------------+
 * </pre>
 *
 * Cursor (s, f) means: every shard below s has been covered, and in shard s every fingerprint below
 * f. {@link ScanPage#START} (0) is (0, 0), the start; an iteration that has covered the last shard
 * returns 0 again rather than (shards, 0). A bound of 2^22 is never encoded: it is the next shard's
 * bound 0.
 *
 * <p>Clients see the cursor as an opaque number. It depends only on the hash seed and the shard
 * count, both fixed in {@code cellar.meta} when the store is created, so it stays meaningful when
 * the store is closed and reopened.
 */
final class ScanCursorDescriptor {
  static final int SHARD_BITS = 12;
  static final int SHARD_SHIFT = FINGERPRINT_BITS;
  static final long FINGERPRINT_MASK = FINGERPRINT_END - 1;
  static final long SHARD_MASK = (1L << SHARD_BITS) - 1;
  static final int USED_BITS = FINGERPRINT_BITS + SHARD_BITS;

  private ScanCursorDescriptor() {}

  /**
   * The cursor for shard {@code shard} from fingerprint {@code bound} on, in a store of {@code
   * shards}.
   */
  static long encode(int shard, long bound, int shards) {
    if (bound == FINGERPRINT_END) {
      shard++;
      bound = 0;
    }
    return shard == shards ? ScanPage.START : ((long) shard << SHARD_SHIFT) | bound;
  }

  static int shard(long cursor) {
    return (int) ((cursor >>> SHARD_SHIFT) & SHARD_MASK);
  }

  static long bound(long cursor) {
    return cursor & FINGERPRINT_MASK;
  }

  /** Refuses a number that no store of {@code shards} shards returns as a cursor. */
  static void validate(long cursor, int shards) {
    if (cursor >>> USED_BITS != 0 || shard(cursor) >= shards) {
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT,
          "scan cursor "
              + Long.toUnsignedString(cursor)
              + " is not one this store returns: it has "
              + shards
              + " shards, so cursors are below "
              + ((long) shards << SHARD_SHIFT)
              + "; start an iteration with cursor 0");
    }
  }
}
