package dev.cellar.log;

import dev.cellar.Compression;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Layout of the codec block of a compressed segment (the header's COMPRESSED flag; see {@code
 * docs/format/compression.md}): the codec and the dictionary every compressed value of the segment
 * was compressed against. It follows the header, or the cipher block of an encrypted segment, and
 * the header's {@code data start} says where the records begin after it. Written once, when the
 * file is created, and never rewritten.
 *
 * <pre>
 *  0        8       9          12        16      24        28         32
 *  +--------+-------+----------+---------+-------+---------+----------+------------------+------+
 *  | magic  | codec | reserved | dictLen | dict  | samples | reserved | dictionary bytes | CRC  |
 *  |        |  u8   |          |   u32   | id u64|   u32   |          | (+ tag if enc.)  | u32  |
 *  +--------+-------+----------+---------+-------+---------+----------+------------------+------+
 * </pre>
 *
 * In an encrypted segment the dictionary bytes are encrypted like a record's key and value (it is
 * made of the store's own data): the file's key, the block's offset in the file as the nonce (no
 * record starts there), the block's first 32 bytes as associated data, and a 16-byte tag after
 * them. The masked CRC32C covers everything before it.
 */
public final class CodecBlockDescriptor {
  public static final byte[] MAGIC = "CELLARCZ".getBytes(StandardCharsets.US_ASCII);
  public static final int MAGIC_OFFSET = 0;
  public static final int CODEC_OFFSET = 8;
  public static final int DICT_LENGTH_OFFSET = 12;
  public static final int DICT_ID_OFFSET = 16;
  public static final int SAMPLES_OFFSET = 24;
  public static final int DICT_OFFSET = 32;

  /** The fixed fields: everything before the dictionary. */
  public static final int FIXED_LENGTH = DICT_OFFSET;

  public static final int CRC_BYTES = 4;

  /** Records start at a multiple of this after the block. */
  public static final int ALIGNMENT = 64;

  /** The largest dictionary a block may hold: the largest a store trains (LZ4's 64 KiB). */
  public static final int MAX_DICT_BYTES = 64 << 10;

  /**
   * The largest dictionary a segment of {@code segmentBytes} may hold: {@link #MAX_DICT_BYTES}, and
   * no more than a sixteenth of the segment, so that small segments still hold mostly records.
   */
  public static int maxDictionaryBytes(long segmentBytes) {
    return (int) Math.min(MAX_DICT_BYTES, segmentBytes / 16);
  }

  /**
   * The most bytes before the first record of a compressed segment of {@code segmentBytes}: the
   * header, a cipher block, and a codec block with the largest dictionary it may hold.
   */
  public static int maxDataStart(long segmentBytes) {
    return dataStart(
        SegmentHeaderDescriptor.ENCRYPTED_DATA_START,
        maxDictionaryBytes(segmentBytes),
        SegmentCipher.TAG_BYTES);
  }

  public static final int CODEC_LZ4 = 1;
  public static final int CODEC_ZSTD = 2;

  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private CodecBlockDescriptor() {}

  /** The code of {@code codec} in the block. */
  public static int code(Compression codec) {
    return switch (codec) {
      case LZ4 -> CODEC_LZ4;
      case ZSTD -> CODEC_ZSTD;
      case NONE -> throw new IllegalArgumentException("no codec block for none");
    };
  }

  /** The codec of {@code code}, or null if there is none such. */
  public static Compression codec(int code) {
    return switch (code) {
      case CODEC_LZ4 -> Compression.LZ4;
      case CODEC_ZSTD -> Compression.ZSTD;
      default -> null;
    };
  }

  /** The bytes the block takes for a dictionary of {@code dictLength} ({@code tag} its tag). */
  public static int length(int dictLength, int tag) {
    return FIXED_LENGTH + dictLength + tag + CRC_BYTES;
  }

  /** Where records start after a block written at {@code blockOffset}. */
  public static int dataStart(int blockOffset, int dictLength, int tag) {
    int end = blockOffset + length(dictLength, tag);
    return (end + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  /**
   * Encodes a block for {@code dictionary} (plaintext) with {@code cipher} (null if the segment is
   * not encrypted), to be written at {@code blockOffset} of its file.
   */
  public static byte[] encode(
      Compression codec,
      long dictId,
      int samples,
      byte[] dictionary,
      SegmentCipher cipher,
      int blockOffset) {
    int tag = RecordDescriptor.tagBytes(cipher);
    byte[] out = new byte[length(dictionary.length, tag)];
    MemorySegment s = MemorySegment.ofArray(out);
    MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, s, MAGIC_OFFSET, MAGIC.length);
    out[CODEC_OFFSET] = (byte) code(codec);
    s.set(INT, DICT_LENGTH_OFFSET, dictionary.length);
    s.set(LONG, DICT_ID_OFFSET, dictId);
    s.set(INT, SAMPLES_OFFSET, samples);
    System.arraycopy(dictionary, 0, out, DICT_OFFSET, dictionary.length);
    if (cipher != null) {
      cipher.seal(out, 0, FIXED_LENGTH, DICT_OFFSET, dictionary.length, blockOffset);
    }
    int crcAt = out.length - CRC_BYTES;
    s.set(INT, crcAt, Crc32c.masked(out, 0, crcAt));
    return out;
  }

  /** What a block holds: its codec, dictionary (plaintext) and identity. */
  public record Block(Compression codec, long dictId, int samples, byte[] dictionary) {}

  /**
   * Reads the block at {@code blockOffset} of {@code segment}, which must end by {@code limit} (the
   * segment's data start); decrypts its dictionary with {@code cipher} if not null.
   *
   * @throws IllegalArgumentException with what is wrong when it is damaged, or its tag fails
   */
  public static Block read(
      MemorySegment segment, int blockOffset, long limit, SegmentCipher cipher) {
    int tag = RecordDescriptor.tagBytes(cipher);
    if (limit > segment.byteSize() || limit - blockOffset < length(0, tag)) {
      throw new IllegalArgumentException("codec block truncated");
    }
    MemorySegment s = segment.asSlice(blockOffset, limit - blockOffset);
    if (MemorySegment.mismatch(s, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      throw new IllegalArgumentException("bad codec block magic");
    }
    int dictLength = s.get(INT, DICT_LENGTH_OFFSET);
    if (dictLength < 0 || dictLength > MAX_DICT_BYTES || length(dictLength, tag) > s.byteSize()) {
      throw new IllegalArgumentException(
          "codec block names a dictionary of " + dictLength + " bytes");
    }
    byte[] block = s.asSlice(0, length(dictLength, tag)).toArray(ValueLayout.JAVA_BYTE);
    int crcAt = block.length - CRC_BYTES;
    if (MemorySegment.ofArray(block).get(INT, crcAt) != Crc32c.masked(block, 0, crcAt)) {
      throw new IllegalArgumentException("codec block checksum mismatch");
    }
    Compression codec = codec(block[CODEC_OFFSET] & 0xFF);
    if (codec == null) {
      throw new IllegalArgumentException("unknown codec " + (block[CODEC_OFFSET] & 0xFF));
    }
    if (cipher != null
        && !cipher.open(block, 0, FIXED_LENGTH, DICT_OFFSET, dictLength, blockOffset)) {
      throw new IllegalArgumentException("codec block fails its AES-GCM tag");
    }
    MemorySegment b = MemorySegment.ofArray(block);
    return new Block(
        codec,
        b.get(LONG, DICT_ID_OFFSET),
        b.get(INT, SAMPLES_OFFSET),
        java.util.Arrays.copyOfRange(block, DICT_OFFSET, DICT_OFFSET + dictLength));
  }
}
