package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Layout of one log record. Specified in {@code docs/format/log.md}; this class is the only place
 * that knows the offsets.
 *
 * <pre>
 *   0                   4         5
 *   +-------------------+---------+-------------+---------------+-------------+
 *   | masked CRC32C u32 | type u8 | keyLen var  | valueLen var  | seq var     |
 *   +-------------------+---------+-------------+---------------+-------------+
 *   | expireAt i64 (only when type has EXPIRY bit) | key bytes | value bytes  |
 *   +----------------------------------------------+-----------+--------------+
 * </pre>
 *
 * All fixed-width integers are little-endian; {@code var} is an unsigned LEB128 varint. The CRC
 * covers every byte after itself up to the end of the value. A record never spans segments.
 *
 * <p>Invariants: {@code type & TYPE_MASK} is {@link #PUT}, {@link #DELETE}, {@link #HEADER}, {@link
 * #ELEMENT_PUT} or {@link #ELEMENT_DELETE}; a delete has a zero value length and no expiry; an
 * element has no expiry; keyLen is at least 1. A type byte of zero marks unwritten space.
 *
 * <p>A PUT with the {@link #COMPRESSED_BIT} (written by compaction into a compressed segment only)
 * stores its value compressed: the value field is a varint of the value's own length, then the
 * codec's frame (docs/format/compression.md). {@code valueLen} is then the field's length.
 */
public final class RecordDescriptor {
  public static final int CRC_OFFSET = 0;
  public static final int TYPE_OFFSET = 4;
  public static final int VARINTS_OFFSET = 5;

  public static final int PUT = 1;
  public static final int DELETE = 2;

  /**
   * A put of a key's <em>header</em>: a value in the keyspace of plain keys that plain reads do not
   * return (a collection's metadata, written by the server). It is replaced and deleted as a plain
   * value is, and it expires as one does.
   */
  public static final int HEADER = 3;

  /**
   * A put in the keyspace of <em>elements</em>: keys hidden from scans, sizes, random keys and
   * expiry, addressed with a hash of their own ({@code dev.cellar.index.KeyHasher#element}), so an
   * element never matches a plain key of the same bytes. Never expires.
   */
  public static final int ELEMENT_PUT = 4;

  /** A delete in the keyspace of elements. */
  public static final int ELEMENT_DELETE = 5;

  public static final int TYPE_MASK = 0x0F;

  /** Whether {@code type} (a type byte's low nibble) deletes. */
  public static boolean isDelete(int type) {
    return type == DELETE || type == ELEMENT_DELETE;
  }

  /** Whether {@code type} is of the keyspace of elements. */
  public static boolean isElement(int type) {
    return type == ELEMENT_PUT || type == ELEMENT_DELETE;
  }

  /** Set on a PUT whose value expires; an 8-byte expiry follows the varints. */
  public static final int EXPIRY_BIT = 0x80;

  public static final int EXPIRY_BYTES = 8;

  /**
   * Set on a PUT whose value is compressed with its segment's codec and dictionary: the value field
   * is {@code varint(value length) || frame}.
   */
  public static final int COMPRESSED_BIT = 0x40;

  /**
   * The bits a type byte may have besides the type: {@link #EXPIRY_BIT}, {@link #COMPRESSED_BIT}.
   */
  public static final int FLAG_BITS = EXPIRY_BIT | COMPRESSED_BIT;

  /**
   * Set on every record of an atomic unit but its last: another record of the same unit follows
   * this one, immediately (docs/format/log.md, "Atomic units").
   */
  public static final int UNIT_MORE_BIT = 0x10;

  /** Set on every record of an atomic unit but its first: this one continues the unit. */
  public static final int UNIT_CONTINUES_BIT = 0x20;

  /** Both unit bits; a record with neither stands alone. */
  public static final int UNIT_BITS = UNIT_MORE_BIT | UNIT_CONTINUES_BIT;

  /** Whether {@code typeByte} is the first byte of some valid record's type field. */
  public static boolean validTypeByte(int typeByte) {
    int type = typeByte & TYPE_MASK;
    if ((typeByte & ~(TYPE_MASK | FLAG_BITS | UNIT_BITS)) != 0) {
      return false;
    }
    return type == PUT
        || type == HEADER
        || (type == ELEMENT_PUT && (typeByte & EXPIRY_BIT) == 0)
        || (isDelete(type) && (typeByte & FLAG_BITS) == 0);
  }

  /**
   * The unit bits a record at position {@code item} of a unit of {@code count} records carries:
   * none when it stands alone, {@link #UNIT_MORE_BIT} on all but the last, {@link
   * #UNIT_CONTINUES_BIT} on all but the first.
   */
  public static int unitBits(int item, int count) {
    if (count <= 1) {
      return 0;
    }
    return (item < count - 1 ? UNIT_MORE_BIT : 0) | (item > 0 ? UNIT_CONTINUES_BIT : 0);
  }

  /**
   * Every seq is below this (docs/format/log.md): readers refuse a record with a larger one, so a
   * writer must never assign it. At a billion writes a second it lasts over a year; reaching it
   * means a damaged or forged checkpoint or segment, never honest use.
   */
  public static final long SEQ_LIMIT = 1L << 55;

  /** Longest varint of a length (an int): 5 bytes of 7 bits. */
  public static final int MAX_LENGTH_VARINT_BYTES = 5;

  /** Longest varint of a seq (below 2^63): 9 bytes of 7 bits. */
  public static final int MAX_SEQ_VARINT_BYTES = 9;

  /**
   * Most bytes a record adds to its key and value: CRC, type, the three varints at their longest
   * and the expiry. 32.
   */
  public static final int MAX_FRAMING_LENGTH =
      VARINTS_OFFSET + 2 * MAX_LENGTH_VARINT_BYTES + MAX_SEQ_VARINT_BYTES + EXPIRY_BYTES;

  /** Smallest possible record: CRC, type, three one-byte varints, a one-byte key. */
  public static final int MIN_LENGTH = 4 + 1 + 3 + 1;

  private static final java.lang.invoke.VarHandle HEAP_INT =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final java.lang.invoke.VarHandle HEAP_LONG =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private RecordDescriptor() {}

  /** Bytes a record with these fields occupies. */
  public static long length(long keyLength, long valueLength, long seq, boolean hasExpiry) {
    return VARINTS_OFFSET
        + Varint.size(keyLength)
        + Varint.size(valueLength)
        + Varint.size(seq)
        + (hasExpiry ? EXPIRY_BYTES : 0)
        + keyLength
        + valueLength;
  }

  /**
   * Encodes a complete record, CRC included, into {@code out} from index 0; returns its length.
   * {@code out} must hold {@link #length} bytes. Encoding into a heap array and copying the result
   * into the log once is cheaper than writing field by field through a mapping, and lets the CRC be
   * computed on the array.
   *
   * @param expireAt epoch millis, or 0 for none
   */
  public static int encode(
      byte[] out, int type, MemorySegment key, MemorySegment value, long seq, long expireAt) {
    return value == null
        ? encode(out, type, key, 0, key.byteSize(), null, 0, 0, seq, expireAt)
        : encode(out, type, key, 0, key.byteSize(), value, 0, value.byteSize(), seq, expireAt);
  }

  /**
   * {@link #encode(byte[], int, MemorySegment, MemorySegment, long, long)} with the key and the
   * value given as ranges of larger segments ({@code value} null for a delete), so a caller that
   * parsed them out of a buffer need not slice it.
   */
  public static int encode(
      byte[] out,
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long seq,
      long expireAt) {
    return encode(
        out,
        type,
        key,
        keyOffset,
        keyLength,
        value,
        valueOffset,
        valueLength,
        seq,
        expireAt,
        null,
        0,
        new CRC32C());
  }

  /**
   * As {@link #encode(byte[], int, MemorySegment, long, long, MemorySegment, long, long, long,
   * long)}, encrypted with {@code cipher} (if not null) for a record at {@code offset} of its file:
   * {@code out} must then hold {@link SegmentCipher#TAG_BYTES} more. The CRC is computed with
   * {@code crc}, the caller's to reuse (a log writer's own, under its lock): the append path makes
   * no object, whatever the JIT inlines.
   */
  public static int encode(
      byte[] out,
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long seq,
      long expireAt,
      SegmentCipher cipher,
      long offset,
      CRC32C crc) {
    int keyAt = encodeHeader(out, 0, type, keyLength, valueLength, seq, expireAt);
    int at = keyAt;
    MemorySegment.copy(key, ValueLayout.JAVA_BYTE, keyOffset, out, at, (int) keyLength);
    at += (int) keyLength;
    if (valueLength > 0) {
      MemorySegment.copy(value, ValueLayout.JAVA_BYTE, valueOffset, out, at, (int) valueLength);
      at += (int) valueLength;
    }
    return seal(out, 0, keyAt, at, cipher, offset, crc);
  }

  /**
   * Encodes the fields of a record that starts at {@code out[start]}, all but its CRC (the type,
   * the varints, the expiry); returns where its key goes. The key and value are the caller's to
   * copy, then {@link #seal} completes the record. For callers that copy keys and values from their
   * own storage ({@link LogWriter#appendAll}).
   *
   * @param expireAt epoch millis, or 0 for none
   */
  static int encodeHeader(
      byte[] out, int start, int type, long keyLength, long valueLength, long seq, long expireAt) {
    boolean hasExpiry = expireAt != 0;
    out[start + TYPE_OFFSET] = (byte) (type | (hasExpiry ? EXPIRY_BIT : 0));
    int at = Varint.write(out, start + VARINTS_OFFSET, keyLength);
    at = Varint.write(out, at, valueLength);
    at = Varint.write(out, at, seq);
    if (hasExpiry) {
      HEAP_LONG.set(out, at, expireAt);
      at += EXPIRY_BYTES;
    }
    return at;
  }

  /** Stores the CRC of the record in {@code out[start, end)}, its other bytes all in place. */
  static void seal(byte[] out, int start, int end, CRC32C crc) {
    int covered = start + TYPE_OFFSET;
    HEAP_INT.set(out, start + CRC_OFFSET, Crc32c.masked(crc, out, covered, end - covered));
  }

  /**
   * Completes the record at {@code out[start]} whose plaintext key and value are {@code out[keyAt,
   * end)}: encrypts them with {@code cipher} if not null (the record to be written at {@code
   * offset} of its file; {@code out} must have room for the tag), then stores the CRC. Returns the
   * record's end.
   */
  static int seal(
      byte[] out, int start, int keyAt, int end, SegmentCipher cipher, long offset, CRC32C crc) {
    if (cipher != null) {
      int aad = start + TYPE_OFFSET;
      cipher.seal(out, aad, keyAt - aad, keyAt, end - keyAt, offset);
      end += SegmentCipher.TAG_BYTES;
    }
    seal(out, start, end, crc);
    return end;
  }

  /** Bytes a record adds when encrypted: its tag. */
  public static int tagBytes(SegmentCipher cipher) {
    return cipher == null ? 0 : SegmentCipher.TAG_BYTES;
  }

  /** Writes a complete record at {@code offset} of {@code log}; returns its length. */
  public static int write(
      MemorySegment log,
      long offset,
      int type,
      MemorySegment key,
      MemorySegment value,
      long seq,
      long expireAt) {
    return write(log, offset, type, key, value, seq, expireAt, null);
  }

  /**
   * As {@link #write(MemorySegment, long, int, MemorySegment, MemorySegment, long, long)},
   * encrypted with {@code cipher} if not null.
   */
  public static int write(
      MemorySegment log,
      long offset,
      int type,
      MemorySegment key,
      MemorySegment value,
      long seq,
      long expireAt,
      SegmentCipher cipher) {
    long valueLength = value == null ? 0 : value.byteSize();
    byte[] record =
        new byte[(int) length(key.byteSize(), valueLength, seq, expireAt != 0) + tagBytes(cipher)];
    int length =
        encode(
            record,
            type,
            key,
            0,
            key.byteSize(),
            value,
            0,
            valueLength,
            seq,
            expireAt,
            cipher,
            offset,
            new CRC32C());
    MemorySegment.copy(record, 0, log, ValueLayout.JAVA_BYTE, offset, length);
    return length;
  }

  /** The stored (masked) CRC of the record at {@code offset}. */
  public static int storedCrc(MemorySegment log, long offset) {
    return log.get(INT, offset + CRC_OFFSET);
  }

  /** Whether the bytes at {@code offset} are unwritten space (zero CRC and type). */
  public static boolean isBlank(MemorySegment log, long offset) {
    return log.get(INT, offset + CRC_OFFSET) == 0
        && log.get(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET) == 0;
  }

  static long readExpiry(MemorySegment log, long offset) {
    return log.get(LONG, offset);
  }
}
