package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What the index's key comparison for writes and the garbage accounting of an overwrite read from a
 * record's header, read with static methods instead of a {@link RecordView} (a read compares keys
 * in the view it reads the record with): every SET passes here once or twice, and a view made for
 * one call is removed only if the JIT inlines all of its parsing. Whether it does depends on the
 * order in which methods were compiled (a callee already compiled to more than {@code
 * InlineSmallCode} is not inlined), so a loaded machine got a path that allocated two views a
 * request. Nothing here allocates whatever the JIT decides.
 *
 * <p>Only for plaintext records read from memory (no cipher, no O_DIRECT), and only for headers
 * whose three varints fit the 8 bytes after the CRC with a key under 16 MiB and a value under 4
 * GiB: every other record is {@link #UNDECIDED}, and the caller parses it with a view. Over those
 * records the answers are a view's: the same bounds and the same validity checks ({@code
 * RecordPeekTest} compares the two on random and corrupted records).
 */
public final class RecordPeek {
  /** The header needs {@link RecordView}'s full parser. */
  public static final long UNDECIDED = -1;

  /** The bytes are not a record within the limit (a view's {@code parse} returns false). */
  public static final long INVALID = -2;

  private static final ValueLayout.OfLong HEADER_WORD =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  private static final int VALUE_BITS = 32;
  private static final int KEY_BITS = 24;
  private static final int USED_SHIFT = VALUE_BITS + KEY_BITS;
  private static final long DELETE_FLAG = 1L << 59;
  private static final long EXPIRY_FLAG = 1L << 60;

  private RecordPeek() {}

  /**
   * Whether the record at {@code offset} of {@code log}, ending by {@code limit}, has the key
   * {@code key[from, from + length)}: 1 if so, 0 if not or if the bytes are no record, or {@link
   * #UNDECIDED}.
   */
  public static int keyMatches(
      MemorySegment log, long offset, long limit, MemorySegment key, long from, long length) {
    long fields = header(log, offset, limit);
    if (fields < 0) {
      return fields == INVALID ? 0 : (int) UNDECIDED;
    }
    long keyLength = (fields >>> VALUE_BITS) & ((1L << KEY_BITS) - 1);
    if (keyLength != length) {
      return 0;
    }
    long keyAt = keyOffset(offset, fields);
    return MemorySegment.mismatch(log, keyAt, keyAt + keyLength, key, from, from + length) == -1
        ? 1
        : 0;
  }

  /** The whole record's length in bytes, of a {@link #header}. */
  public static long length(long header) {
    long keyLength = (header >>> VALUE_BITS) & ((1L << KEY_BITS) - 1);
    long valueLength = header & ((1L << VALUE_BITS) - 1);
    return keyOffset(0, header) + keyLength + valueLength;
  }

  /** Whether the record of a {@link #header} is a tombstone. */
  public static boolean isDelete(long header) {
    return (header & DELETE_FLAG) != 0;
  }

  /** The expiry, epoch millis, of the record of a {@link #header} at {@code offset}, or 0. */
  public static long expireAt(MemorySegment log, long offset, long header) {
    if ((header & EXPIRY_FLAG) == 0) {
      return 0;
    }
    return RecordDescriptor.readExpiry(log, varintsEnd(offset, header));
  }

  private static long varintsEnd(long offset, long fields) {
    return offset + RecordDescriptor.VARINTS_OFFSET + ((fields >>> USED_SHIFT) & 7);
  }

  private static long keyOffset(long offset, long fields) {
    return varintsEnd(offset, fields)
        + ((fields & EXPIRY_FLAG) != 0 ? RecordDescriptor.EXPIRY_BYTES : 0);
  }

  /**
   * The header of the record at {@code offset} of {@code log}, ending by {@code limit}, for {@link
   * #length}, {@link #isDelete} and {@link #expireAt}: its value length (bits 0-31), key length
   * (32-55), bytes of varints (56-58) and flags, checked as {@link RecordView} checks it; or {@link
   * #INVALID} or {@link #UNDECIDED}.
   */
  public static long header(MemorySegment log, long offset, long limit) {
    if (offset < 0 || limit - offset < RecordDescriptor.MIN_LENGTH || limit > log.byteSize()) {
      return INVALID;
    }
    if (limit - offset < RecordDescriptor.TYPE_OFFSET + Long.BYTES) {
      return UNDECIDED;
    }
    long word = log.get(HEADER_WORD, offset + RecordDescriptor.TYPE_OFFSET);
    int typeByte = (int) word & 0xFF;
    long rest = word >>> 8;
    int ends = Varint.wordEnds(rest);
    if (ends < 0) {
      return UNDECIDED; // the varints do not stop within the word: the view's byte-wise parser
    }
    int keyEnd = ends & 0xFF;
    int valueEnd = (ends >>> 8) & 0xFF;
    int used = ((ends >>> 16) >>> 3) + 1;
    long keyLength = Varint.wordField(rest, -1, keyEnd);
    long valueLength = Varint.wordField(rest, keyEnd, valueEnd);
    if (!RecordDescriptor.validTypeByte(typeByte)) {
      return INVALID;
    }
    if (keyLength >= 1L << KEY_BITS || valueLength >= 1L << VALUE_BITS) {
      return UNDECIDED;
    }
    int type = typeByte & RecordDescriptor.TYPE_MASK;
    boolean delete = RecordDescriptor.isDelete(type);
    boolean compressed = (typeByte & RecordDescriptor.COMPRESSED_BIT) != 0;
    long keyAt = offset + RecordDescriptor.VARINTS_OFFSET + used;
    boolean hasExpiry = (typeByte & RecordDescriptor.EXPIRY_BIT) != 0;
    if (hasExpiry) {
      if (keyAt + RecordDescriptor.EXPIRY_BYTES > limit
          || RecordDescriptor.readExpiry(log, keyAt) == 0) {
        return INVALID;
      }
      keyAt += RecordDescriptor.EXPIRY_BYTES;
    }
    if (keyLength == 0 || (delete && valueLength != 0) || (compressed && valueLength < 2)) {
      return INVALID;
    }
    long end = keyAt + keyLength + valueLength;
    if (end > limit) {
      return INVALID;
    }
    return valueLength
        | keyLength << VALUE_BITS
        | (long) used << USED_SHIFT
        | (delete ? DELETE_FLAG : 0)
        | (hasExpiry ? EXPIRY_FLAG : 0);
  }
}
