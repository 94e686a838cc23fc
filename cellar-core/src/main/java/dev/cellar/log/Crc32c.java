package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC32C of log and checkpoint bytes, stored masked. Masking (as LevelDB does) keeps the CRC of a
 * region that itself contains CRCs from being trivially related to them.
 *
 * <p>{@link CRC32C} is an intrinsic on direct buffers, and {@link MemorySegment#asByteBuffer()} of
 * a mapped or native segment is one, so checksumming the log costs no copy.
 */
public final class Crc32c {
  private static final int MASK_DELTA = 0xa282ead8;

  private Crc32c() {}

  /** The unmasked CRC32C of {@code length} bytes of {@code segment} from {@code offset}. */
  public static int compute(MemorySegment segment, long offset, long length) {
    CRC32C crc = new CRC32C();
    crc.update(segment.asSlice(offset, length).asByteBuffer());
    return (int) crc.getValue();
  }

  /**
   * The masked CRC32C of {@code length} bytes of {@code bytes} from {@code offset}. The hot paths
   * checksum heap copies: a {@code ByteBuffer} view of a mapped segment costs an allocation and an
   * atomic acquire/release of the segment's shared arena per call, a cache line every reader thread
   * would write.
   */
  public static int masked(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return mask((int) crc.getValue());
  }

  /** As {@link #masked(byte[], int, int)}, computed with {@code crc}, which is reset first. */
  public static int masked(CRC32C crc, byte[] bytes, int offset, int length) {
    crc.reset();
    crc.update(bytes, offset, length);
    return mask((int) crc.getValue());
  }

  /** The masked CRC32C of the range, as stored in files. */
  public static int masked(MemorySegment segment, long offset, long length) {
    return mask(compute(segment, offset, length));
  }

  public static int mask(int crc) {
    return ((crc >>> 15) | (crc << 17)) + MASK_DELTA;
  }

  public static int unmask(int masked) {
    int rot = masked - MASK_DELTA;
    return (rot >>> 17) | (rot << 15);
  }
}
