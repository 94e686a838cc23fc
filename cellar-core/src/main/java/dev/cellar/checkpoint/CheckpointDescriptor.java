package dev.cellar.checkpoint;

import dev.cellar.IncompatibleFormatException;
import dev.cellar.index.IndexSlotDescriptor;
import dev.cellar.log.Crc32c;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Layout of an index checkpoint file, {@code checkpoint-<16 hex digits>.ckpt} (see {@code
 * docs/format/checkpoint.md}); the only class that knows its offsets. All integers little-endian.
 *
 * <pre>
 * header, 64 bytes, at offset 0:
 *   0        8       10      12            16                  24                 32
 *   +--------+-------+-------+-------------+-------------------+------------------+
 *   | magic  | major | minor | shard count | replay-from segm. | replay-from off. |
 *   +--------+-------+-------+-------------+-------------------+------------------+
 *   32         40          44         48            56         60
 *   +----------+-----------+----------+-------------+----------+------------+
 *   | next seq | seg count | reserved | file length | body CRC | header CRC |
 *   +----------+-----------+----------+-------------+----------+------------+
 *
 * shard block, one per shard in shard order, the first at offset 64:
 *   0            8           16              24                        aligned
 *   +------------+-----------+---------------+------------------------+--------------------+
 *   | slot count | key count | element count | zeros to a 4096 offset | slot count × 8 B   |
 *   +------------+-----------+---------------+------------------------+--------------------+
 *
 * segment entry, 64 bytes each, the last (segment count × 64) bytes of the file:
 *   0            8      12     14         16           24               32
 *   +------------+------+------+----------+------------+----------------+
 *   | segment id | slot | kind | reserved | dead bytes | live TTL bytes |
 *   +------------+------+------+----------+------------+----------------+
 *   32           40        48        56         64
 *   +------------+---------+---------+----------+
 *   | max expiry | min seq | max seq | reserved |
 *   +------------+---------+---------+----------+
 * </pre>
 *
 * Both CRCs are masked CRC32C: the header CRC covers bytes 0 to 59, the body CRC every byte after
 * the header. Shard slot arrays start page-aligned so that a reader can map or copy each as a unit;
 * their words are specified by {@link IndexSlotDescriptor}. The segment table comes last because it
 * is read after the shards are copied (a segment created meanwhile may be referenced by the
 * copies).
 */
public final class CheckpointDescriptor {
  public static final byte[] MAGIC = "CELLARCK".getBytes(StandardCharsets.US_ASCII);
  public static final short MAJOR_VERSION = 1;

  /** 1 added the element count of each shard (minor 0 wrote zeros there, and held no elements). */
  public static final short MINOR_VERSION = 1;

  public static final int HEADER_LENGTH = 64;
  public static final int SEGMENT_ENTRY_LENGTH = 64;
  public static final int SHARD_HEADER_LENGTH = 24;
  public static final int PAGE = 4096;

  // Header fields.
  public static final int MAGIC_OFFSET = 0;
  public static final int MAJOR_OFFSET = 8;
  public static final int MINOR_OFFSET = 10;
  public static final int SHARDS_OFFSET = 12;
  public static final int REPLAY_SEGMENT_OFFSET = 16;
  public static final int REPLAY_OFFSET_OFFSET = 24;
  public static final int NEXT_SEQ_OFFSET = 32;
  public static final int SEGMENT_COUNT_OFFSET = 40;
  public static final int HEADER_RESERVED_OFFSET = 44;
  public static final int FILE_LENGTH_OFFSET = 48;
  public static final int BODY_CRC_OFFSET = 56;
  public static final int HEADER_CRC_OFFSET = 60;

  // Shard header fields, relative to the shard block.
  public static final int SLOT_COUNT_OFFSET = 0;
  public static final int KEY_COUNT_OFFSET = 8;

  /** How many of the key count's entries are elements (zero before minor version 1). */
  public static final int ELEMENT_COUNT_OFFSET = 16;

  /**
   * Bytes of one slot in a shard's slot array: an index slot word, stored as the index holds it.
   */
  public static final int SLOT_BYTES = IndexSlotDescriptor.BYTES;

  /** The largest slot count a reader accepts for a shard (a sanity bound, not a written limit). */
  public static final long MAX_SLOTS_PER_SHARD = 1L << 40;

  // Segment entry fields, relative to the entry.
  public static final int ENTRY_SEGMENT_ID_OFFSET = 0;
  public static final int ENTRY_SLOT_OFFSET = 8;
  public static final int ENTRY_KIND_OFFSET = 12;
  public static final int ENTRY_RESERVED_OFFSET = 14;
  public static final int ENTRY_DEAD_BYTES_OFFSET = 16;
  public static final int ENTRY_TTL_LIVE_BYTES_OFFSET = 24;
  public static final int ENTRY_MAX_EXPIRY_OFFSET = 32;
  public static final int ENTRY_MIN_SEQ_OFFSET = 40;
  public static final int ENTRY_MAX_SEQ_OFFSET = 48;
  public static final int ENTRY_TAIL_RESERVED_OFFSET = 56;

  /** Offset of the first shard block. */
  public static final long FIRST_SHARD_OFFSET = HEADER_LENGTH;

  private static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private static final String FILE_PREFIX = "checkpoint-";
  private static final String FILE_SUFFIX = ".ckpt";
  private static final int SEQUENCE_DIGITS = 16;

  private CheckpointDescriptor() {}

  public static String fileName(long sequence) {
    return String.format("checkpoint-%016x.ckpt", sequence);
  }

  /** The sequence in a checkpoint file name, or -1. */
  public static long sequenceOf(String fileName) {
    if (!fileName.startsWith(FILE_PREFIX)
        || !fileName.endsWith(FILE_SUFFIX)
        || fileName.length() != FILE_PREFIX.length() + SEQUENCE_DIGITS + FILE_SUFFIX.length()) {
      return -1;
    }
    try {
      return Long.parseUnsignedLong(
          fileName.substring(FILE_PREFIX.length(), FILE_PREFIX.length() + SEQUENCE_DIGITS), 16);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Offset of the segment entries in a file of {@code fileLength} bytes. */
  public static long entriesOffset(long fileLength, int segmentCount) {
    return fileLength - (long) segmentCount * SEGMENT_ENTRY_LENGTH;
  }

  /** Offset of a shard's slot array, given the offset of its shard header. */
  public static long slotsOffset(long shardHeaderOffset) {
    return align(shardHeaderOffset + SHARD_HEADER_LENGTH);
  }

  public static long align(long offset) {
    return (offset + PAGE - 1) & -PAGE;
  }

  // ------------------------------------------------------------------ header

  /**
   * Writes a complete header, both CRCs included, into the first {@link #HEADER_LENGTH} bytes of
   * {@code s}; the body CRC is the masked CRC of everything after the header, computed by the
   * caller while it wrote the body.
   */
  public static void writeHeader(
      MemorySegment s,
      int shards,
      long replayFromSegment,
      long replayFromOffset,
      long nextSeq,
      int segmentCount,
      long fileLength,
      int maskedBodyCrc) {
    MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, s, MAGIC_OFFSET, MAGIC.length);
    s.set(SHORT, MAJOR_OFFSET, MAJOR_VERSION);
    s.set(SHORT, MINOR_OFFSET, MINOR_VERSION);
    s.set(INT, SHARDS_OFFSET, shards);
    s.set(LONG, REPLAY_SEGMENT_OFFSET, replayFromSegment);
    s.set(LONG, REPLAY_OFFSET_OFFSET, replayFromOffset);
    s.set(LONG, NEXT_SEQ_OFFSET, nextSeq);
    s.set(INT, SEGMENT_COUNT_OFFSET, segmentCount);
    s.set(INT, HEADER_RESERVED_OFFSET, 0);
    s.set(LONG, FILE_LENGTH_OFFSET, fileLength);
    s.set(INT, BODY_CRC_OFFSET, maskedBodyCrc);
    s.set(INT, HEADER_CRC_OFFSET, Crc32c.masked(s, 0, HEADER_CRC_OFFSET));
  }

  /**
   * Validates the header of a checkpoint whose bytes, all {@code s.byteSize()} of them, are {@code
   * s}: magic, header CRC, version, shard count, file length, segment count and body CRC, in that
   * order. Returns null when it is sound, or what is wrong, prefixed by {@code fileName}.
   *
   * @throws IncompatibleFormatException when the header is sound but of another major version
   */
  public static String validateHeader(MemorySegment s, String fileName, int expectedShards) {
    long size = s.byteSize();
    if (size < HEADER_LENGTH) {
      return fileName + ": " + size + " bytes, shorter than its header";
    }
    if (MemorySegment.mismatch(
            s, MAGIC_OFFSET, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      return fileName + ": bad magic, not a Cellar checkpoint";
    }
    if (s.get(INT, HEADER_CRC_OFFSET) != Crc32c.masked(s, 0, HEADER_CRC_OFFSET)) {
      return fileName + ": header checksum mismatch";
    }
    short major = s.get(SHORT, MAJOR_OFFSET);
    if (major != MAJOR_VERSION) {
      throw new IncompatibleFormatException(
          fileName
              + " is checkpoint format version "
              + major
              + "."
              + s.get(SHORT, MINOR_OFFSET)
              + "; this build reads version "
              + MAJOR_VERSION
              + ".x only");
    }
    if (shardCount(s) != expectedShards) {
      return fileName + ": " + shardCount(s) + " shards, the store has " + expectedShards;
    }
    if (fileLength(s) != size) {
      return fileName + ": header says " + fileLength(s) + " bytes, file has " + size;
    }
    int segmentCount = segmentCount(s);
    if (segmentCount < 0
        || segmentCount > LogLocation.MAX_SLOTS
        || entriesOffset(size, segmentCount) < HEADER_LENGTH) {
      return fileName + ": segment count " + segmentCount + " does not fit the file";
    }
    // Checked before the body CRC: it costs nothing, and a writer never wrote such a value.
    long nextSeq = nextSeq(s);
    if (nextSeq < 1 || nextSeq >= RecordDescriptor.SEQ_LIMIT) {
      return fileName + ": next seq " + Long.toUnsignedString(nextSeq) + " is outside 1..2^55-1";
    }
    if (s.get(INT, BODY_CRC_OFFSET) != Crc32c.masked(s, HEADER_LENGTH, size - HEADER_LENGTH)) {
      return fileName + ": body checksum mismatch";
    }
    return null;
  }

  public static int shardCount(MemorySegment s) {
    return s.get(INT, SHARDS_OFFSET);
  }

  public static long replayFromSegment(MemorySegment s) {
    return s.get(LONG, REPLAY_SEGMENT_OFFSET);
  }

  public static long replayFromOffset(MemorySegment s) {
    return s.get(LONG, REPLAY_OFFSET_OFFSET);
  }

  public static long nextSeq(MemorySegment s) {
    return s.get(LONG, NEXT_SEQ_OFFSET);
  }

  public static int segmentCount(MemorySegment s) {
    return s.get(INT, SEGMENT_COUNT_OFFSET);
  }

  public static long fileLength(MemorySegment s) {
    return s.get(LONG, FILE_LENGTH_OFFSET);
  }

  // ------------------------------------------------------------------ shard blocks

  /** Writes a shard header at {@code at} of {@code s}. */
  public static void writeShardHeader(
      MemorySegment s, long at, long slotCount, long keyCount, long elementCount) {
    s.set(LONG, at + SLOT_COUNT_OFFSET, slotCount);
    s.set(LONG, at + KEY_COUNT_OFFSET, keyCount);
    s.set(LONG, at + ELEMENT_COUNT_OFFSET, elementCount);
  }

  public static long elementCount(MemorySegment s, long shardHeaderOffset) {
    return s.get(LONG, shardHeaderOffset + ELEMENT_COUNT_OFFSET);
  }

  public static long slotCount(MemorySegment s, long shardHeaderOffset) {
    return s.get(LONG, shardHeaderOffset + SLOT_COUNT_OFFSET);
  }

  public static long keyCount(MemorySegment s, long shardHeaderOffset) {
    return s.get(LONG, shardHeaderOffset + KEY_COUNT_OFFSET);
  }

  /**
   * Whether a shard header's counts are plausible: a power-of-two slot count no larger than {@link
   * #MAX_SLOTS_PER_SHARD}, and a key count from 0 to the slot count.
   */
  public static boolean plausibleShard(long slotCount, long keyCount) {
    return Long.bitCount(slotCount) == 1
        && slotCount <= MAX_SLOTS_PER_SHARD
        && keyCount >= 0
        && keyCount <= slotCount;
  }

  // ------------------------------------------------------------------ segment entries

  /** Writes {@code entry} at {@code at} of {@code s}, reserved fields zero. */
  public static void writeEntry(MemorySegment s, long at, SegmentEntry entry) {
    s.set(LONG, at + ENTRY_SEGMENT_ID_OFFSET, entry.segmentId());
    s.set(INT, at + ENTRY_SLOT_OFFSET, entry.slot());
    s.set(SHORT, at + ENTRY_KIND_OFFSET, entry.kind());
    s.set(SHORT, at + ENTRY_RESERVED_OFFSET, (short) 0);
    s.set(LONG, at + ENTRY_DEAD_BYTES_OFFSET, entry.deadBytes());
    s.set(LONG, at + ENTRY_TTL_LIVE_BYTES_OFFSET, entry.ttlLiveBytes());
    s.set(LONG, at + ENTRY_MAX_EXPIRY_OFFSET, entry.maxExpiry());
    s.set(LONG, at + ENTRY_MIN_SEQ_OFFSET, entry.minSeq());
    s.set(LONG, at + ENTRY_MAX_SEQ_OFFSET, entry.maxSeq());
    s.set(LONG, at + ENTRY_TAIL_RESERVED_OFFSET, 0L);
  }

  /** Reads the entry at {@code at} of {@code s}; reserved fields are ignored. */
  public static SegmentEntry readEntry(MemorySegment s, long at) {
    return new SegmentEntry(
        s.get(LONG, at + ENTRY_SEGMENT_ID_OFFSET),
        entrySlot(s, at),
        s.get(SHORT, at + ENTRY_KIND_OFFSET),
        s.get(LONG, at + ENTRY_DEAD_BYTES_OFFSET),
        s.get(LONG, at + ENTRY_TTL_LIVE_BYTES_OFFSET),
        s.get(LONG, at + ENTRY_MAX_EXPIRY_OFFSET),
        s.get(LONG, at + ENTRY_MIN_SEQ_OFFSET),
        s.get(LONG, at + ENTRY_MAX_SEQ_OFFSET));
  }

  public static int entrySlot(MemorySegment s, long at) {
    return s.get(INT, at + ENTRY_SLOT_OFFSET);
  }
}
