package dev.cellar.checkpoint;

import java.nio.charset.StandardCharsets;

/**
 * Layout of an index checkpoint file, {@code checkpoint-<16 hex digits>.ckpt} (see {@code
 * docs/format/checkpoint.md}). All integers little-endian.
 *
 * <pre>
 * header, 64 bytes:
 *   0  magic "CELLARCK"           8  major u16   10 minor u16   12 shard count u32
 *  16  replay-from segment id u64 24  replay-from offset u64
 *  32  next seq u64               40  segment entry count u32   44 reserved u32
 *  48  file length u64            56  body CRC32C (masked) u32  60 header CRC32C (masked) u32
 * per shard, in shard order, from offset 64:
 *   0 slot count u64 (a power of two)   8 key count u64
 *  16 slot count × 8-byte index slots (see IndexSlotDescriptor), starting at a 4096-aligned offset
 * segment entries, 64 bytes each, ending at the file's end:
 *   0 segment id u64   8 slot u32   12 kind u16   14 reserved u16
 *  16 dead bytes u64  24 live TTL bytes u64  32 max expiry u64  40 min seq u64  48 max seq u64
 *  56 reserved u64
 * </pre>
 *
 * The body CRC covers every byte after the header. Shard slot arrays start page-aligned so that a
 * reader can map them copy-on-write and use them as the live index without copying. The segment
 * table comes last because it is read after the shards are copied (a segment created meanwhile may
 * be referenced by the copies).
 */
public final class CheckpointDescriptor {
  public static final byte[] MAGIC = "CELLARCK".getBytes(StandardCharsets.US_ASCII);
  public static final short MAJOR_VERSION = 1;
  public static final short MINOR_VERSION = 0;
  public static final int HEADER_LENGTH = 64;
  public static final int SEGMENT_ENTRY_LENGTH = 64;
  public static final int SHARD_HEADER_LENGTH = 16;
  public static final int PAGE = 4096;

  public static final int MAJOR_OFFSET = 8;
  public static final int MINOR_OFFSET = 10;
  public static final int SHARDS_OFFSET = 12;
  public static final int REPLAY_SEGMENT_OFFSET = 16;
  public static final int REPLAY_OFFSET_OFFSET = 24;
  public static final int NEXT_SEQ_OFFSET = 32;
  public static final int SEGMENT_COUNT_OFFSET = 40;
  public static final int FILE_LENGTH_OFFSET = 48;
  public static final int BODY_CRC_OFFSET = 56;
  public static final int HEADER_CRC_OFFSET = 60;

  private CheckpointDescriptor() {}

  public static String fileName(long sequence) {
    return String.format("checkpoint-%016x.ckpt", sequence);
  }

  /** The sequence in a checkpoint file name, or -1. */
  public static long sequenceOf(String fileName) {
    if (!fileName.startsWith("checkpoint-")
        || !fileName.endsWith(".ckpt")
        || fileName.length() != 32) {
      return -1;
    }
    try {
      return Long.parseUnsignedLong(fileName.substring(11, 27), 16);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Offset of the first shard block. */
  public static final long FIRST_SHARD_OFFSET = HEADER_LENGTH;

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
}
