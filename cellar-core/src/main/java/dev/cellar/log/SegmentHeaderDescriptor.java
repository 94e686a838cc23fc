package dev.cellar.log;

import dev.cellar.IncompatibleFormatException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Layout of the 64-byte header at the start of every segment file (see {@code docs/format/log.md}).
 * The header fits one disk sector, so rewriting it at seal time is atomic under the
 * sector-granularity tearing model.
 *
 * <pre>
 *  0        8       10      12     14      16            24              32
 *  +--------+-------+-------+------+-------+-------------+---------------+
 *  | magic  | major | minor | kind | flags | segment id  | sealed length |
 *  +--------+-------+-------+------+-------+-------------+---------------+
 *  32             40        48        56                      60
 *  +--------------+---------+---------+-----------------------+---------------+
 *  | created (ms) | min seq | max seq | data start (reserved) | masked CRC32C |
 *  +--------------+---------+---------+-----------------------+---------------+
 * </pre>
 *
 * The CRC covers bytes 0 to 59. {@code data start} is where the records begin in a compressed
 * segment (format 1.2), after its variable-length codec block; other segments leave it zero (their
 * records begin at a fixed offset). {@code sealed length} and the seq range are meaningful only
 * when the SEALED flag is set; until then the segment's end is found by scanning.
 */
public final class SegmentHeaderDescriptor {
  public static final int LENGTH = 64;
  public static final byte[] MAGIC = "CELLARLG".getBytes(StandardCharsets.US_ASCII);
  public static final short MAJOR_VERSION = 1;
  public static final short MINOR_VERSION = 0;

  /**
   * The minor version of an encrypted segment: 1.1 added the ENCRYPTED flag and the cipher block.
   * Plaintext segments are still written as 1.0, readable by every 1.x reader.
   */
  public static final short ENCRYPTED_MINOR_VERSION = 1;

  /**
   * The minor version of a compressed segment: 1.2 added the COMPRESSED flag, the codec block and
   * the data start field. Such segments are written by compaction only.
   */
  public static final short COMPRESSED_MINOR_VERSION = 2;

  public static final int MAGIC_OFFSET = 0;
  public static final int MAJOR_OFFSET = 8;
  public static final int MINOR_OFFSET = 10;
  public static final int KIND_OFFSET = 12;
  public static final int FLAGS_OFFSET = 14;
  public static final int ID_OFFSET = 16;
  public static final int SEALED_LENGTH_OFFSET = 24;
  public static final int CREATED_OFFSET = 32;
  public static final int MIN_SEQ_OFFSET = 40;
  public static final int MAX_SEQ_OFFSET = 48;
  public static final int RESERVED_OFFSET = 56;

  /** The data start of a compressed segment: the reserved word of other segments. */
  public static final int DATA_START_OFFSET = RESERVED_OFFSET;

  public static final int CRC_OFFSET = 60;

  /** A segment appended to by writers. */
  public static final short KIND_LOG = 1;

  /** A segment written by compaction: older records moved out of log segments. */
  public static final short KIND_COMPACTED = 2;

  public static final short FLAG_SEALED = 1;

  /**
   * Keys and values are encrypted; a {@link CipherBlockDescriptor cipher block} follows the header
   * and records start after it (format 1.1).
   */
  public static final short FLAG_ENCRYPTED = 2;

  /**
   * Values may be compressed: a {@link CodecBlockDescriptor codec block} follows the header (and
   * the cipher block, if encrypted), and records start at the header's data start (format 1.2).
   */
  public static final short FLAG_COMPRESSED = 4;

  /**
   * Set in every log segment this build's writer creates or reopens: an open ends the log at the
   * first gap in the segment's unsealed records (docs/format/log.md, "The prefix rule"), rather
   * than stepping over it. Readers that do not know the flag ignore it and step over holes, as
   * before.
   */
  public static final short FLAG_PREFIX = 8;

  /**
   * The largest data start a compressed segment may declare: a block with the largest dictionary.
   */
  public static final int MAX_COMPRESSED_DATA_START =
      CodecBlockDescriptor.dataStart(
          LENGTH + CipherBlockDescriptor.LENGTH,
          CodecBlockDescriptor.MAX_DICT_BYTES,
          SegmentCipher.TAG_BYTES);

  /** Where the records of a plaintext segment start. */
  public static final int PLAIN_DATA_START = LENGTH;

  /** Where the records of an encrypted segment start: after the header and the cipher block. */
  public static final int ENCRYPTED_DATA_START = LENGTH + CipherBlockDescriptor.LENGTH;

  /** The most bytes before the first record of a segment that is not compressed. */
  public static final int MAX_DATA_START = ENCRYPTED_DATA_START;

  private static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private SegmentHeaderDescriptor() {}

  /** Writes an unsealed plaintext header. */
  public static void writeOpen(MemorySegment s, short kind, long id, long createdMillis) {
    writeOpen(s, kind, id, createdMillis, false);
  }

  /**
   * Writes an unsealed header, with the ENCRYPTED flag (and minor version 1) if {@code encrypted}.
   */
  public static void writeOpen(
      MemorySegment s, short kind, long id, long createdMillis, boolean encrypted) {
    writeOpen(s, kind, id, createdMillis, encrypted, 0);
  }

  /**
   * Writes an unsealed header; {@code compressedDataStart} is nonzero for a compressed segment
   * (flag COMPRESSED, minor version 2, its records starting there).
   */
  public static void writeOpen(
      MemorySegment s,
      short kind,
      long id,
      long createdMillis,
      boolean encrypted,
      int compressedDataStart) {
    boolean compressed = compressedDataStart != 0;
    MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, s, MAGIC_OFFSET, MAGIC.length);
    s.set(SHORT, MAJOR_OFFSET, MAJOR_VERSION);
    s.set(
        SHORT,
        MINOR_OFFSET,
        compressed
            ? COMPRESSED_MINOR_VERSION
            : encrypted ? ENCRYPTED_MINOR_VERSION : MINOR_VERSION);
    s.set(SHORT, KIND_OFFSET, kind);
    s.set(
        SHORT,
        FLAGS_OFFSET,
        (short)
            ((encrypted ? FLAG_ENCRYPTED : 0)
                | (compressed ? FLAG_COMPRESSED : 0)
                | (kind == KIND_LOG ? FLAG_PREFIX : 0)));
    s.set(LONG, ID_OFFSET, id);
    s.set(LONG, SEALED_LENGTH_OFFSET, 0L);
    s.set(LONG, CREATED_OFFSET, createdMillis);
    s.set(LONG, MIN_SEQ_OFFSET, 0L);
    s.set(LONG, MAX_SEQ_OFFSET, 0L);
    s.set(INT, DATA_START_OFFSET, compressedDataStart);
    stampCrc(s);
  }

  /** Marks the header sealed with the segment's final length and seq range. */
  public static void seal(MemorySegment s, long sealedLength, long minSeq, long maxSeq) {
    s.set(SHORT, FLAGS_OFFSET, (short) (s.get(SHORT, FLAGS_OFFSET) | FLAG_SEALED));
    s.set(LONG, SEALED_LENGTH_OFFSET, sealedLength);
    s.set(LONG, MIN_SEQ_OFFSET, minSeq);
    s.set(LONG, MAX_SEQ_OFFSET, maxSeq);
    stampCrc(s);
  }

  private static void stampCrc(MemorySegment s) {
    s.set(INT, CRC_OFFSET, Crc32c.masked(s, 0, CRC_OFFSET));
  }

  /**
   * Validates a header; returns null if it is sound, or what is wrong with it.
   *
   * @throws IncompatibleFormatException when the header is sound but of a newer major version
   */
  public static String validate(MemorySegment s, String fileName) {
    if (s.byteSize() < LENGTH) {
      return "file is " + s.byteSize() + " bytes, shorter than the " + LENGTH + "-byte header";
    }
    if (MemorySegment.mismatch(s, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      return "bad magic: not a Cellar segment";
    }
    if (s.get(INT, CRC_OFFSET) != Crc32c.masked(s, 0, CRC_OFFSET)) {
      return "header checksum mismatch";
    }
    short major = s.get(SHORT, MAJOR_OFFSET);
    if (major != MAJOR_VERSION) {
      throw new IncompatibleFormatException(
          fileName
              + " is segment format version "
              + major
              + "."
              + s.get(SHORT, MINOR_OFFSET)
              + "; this build reads version "
              + MAJOR_VERSION
              + ".x only");
    }
    short kind = kind(s);
    if (kind != KIND_LOG && kind != KIND_COMPACTED) {
      return "unknown segment kind " + kind;
    }
    if (isCompressed(s)) {
      int start = s.get(INT, DATA_START_OFFSET);
      int block = codecBlockOffset(s);
      if (start < block + CodecBlockDescriptor.length(0, 0)
          || start > MAX_COMPRESSED_DATA_START
          || start % CodecBlockDescriptor.ALIGNMENT != 0) {
        return "compressed segment declares its records start at " + start;
      }
      if (s.byteSize() < start) {
        return "file is "
            + s.byteSize()
            + " bytes, shorter than a compressed segment's header and codec block";
      }
    }
    if (isSealed(s) && (sealedLength(s) < dataStart(s))) {
      return "sealed length " + sealedLength(s) + " is shorter than the header";
    }
    if (isEncrypted(s)) {
      if (s.byteSize() < ENCRYPTED_DATA_START) {
        return "file is "
            + s.byteSize()
            + " bytes, shorter than an encrypted segment's header and cipher block";
      }
      return CipherBlockDescriptor.validate(s.asSlice(LENGTH, CipherBlockDescriptor.LENGTH));
    }
    return null;
  }

  public static short kind(MemorySegment s) {
    return s.get(SHORT, KIND_OFFSET);
  }

  public static long id(MemorySegment s) {
    return s.get(LONG, ID_OFFSET);
  }

  public static boolean isSealed(MemorySegment s) {
    return (s.get(SHORT, FLAGS_OFFSET) & FLAG_SEALED) != 0;
  }

  public static boolean isEncrypted(MemorySegment s) {
    return (s.get(SHORT, FLAGS_OFFSET) & FLAG_ENCRYPTED) != 0;
  }

  /** Whether an open ends this segment's records at their first gap ({@link #FLAG_PREFIX}). */
  public static boolean isPrefix(MemorySegment s) {
    return (s.get(SHORT, FLAGS_OFFSET) & FLAG_PREFIX) != 0;
  }

  public static boolean isCompressed(MemorySegment s) {
    return (s.get(SHORT, FLAGS_OFFSET) & FLAG_COMPRESSED) != 0;
  }

  /**
   * Where the codec block of a compressed segment starts: after the header and any cipher block.
   */
  public static int codecBlockOffset(MemorySegment s) {
    return isEncrypted(s) ? ENCRYPTED_DATA_START : PLAIN_DATA_START;
  }

  /**
   * Where the records of the segment whose header this is start (of a compressed one, as its header
   * declares: {@link #validate} checks it).
   */
  public static int dataStart(MemorySegment s) {
    if (isCompressed(s)) {
      return s.get(INT, DATA_START_OFFSET);
    }
    return isEncrypted(s) ? ENCRYPTED_DATA_START : PLAIN_DATA_START;
  }

  public static long sealedLength(MemorySegment s) {
    return s.get(LONG, SEALED_LENGTH_OFFSET);
  }

  public static long createdMillis(MemorySegment s) {
    return s.get(LONG, CREATED_OFFSET);
  }

  public static long minSeq(MemorySegment s) {
    return s.get(LONG, MIN_SEQ_OFFSET);
  }

  public static long maxSeq(MemorySegment s) {
    return s.get(LONG, MAX_SEQ_OFFSET);
  }
}
