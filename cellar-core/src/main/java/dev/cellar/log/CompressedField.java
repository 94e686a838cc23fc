package dev.cellar.log;

import dev.cellar.compress.ValueDictionary;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The value field of a compressed record ({@code varint(value length) || frame}, see {@link
 * RecordDescriptor#COMPRESSED_BIT}) decompressed for one {@link RecordView}: the view's arrays for
 * a field copied off the mapping and for the value decompressed, each made once and grown as
 * needed, and the checks of a field. A view makes one only when it meets a compressed record: a
 * view the JIT removes (an index comparison's) must make no object of its own.
 *
 * <p>Decompression always reads a heap copy, never the mapping: a native call holds the mapping's
 * arena for its duration, and compaction must be able to unmap a segment whatever a reader does.
 *
 * <p>Total over arbitrary bytes: a length varint that is malformed, leaves no frame, or claims more
 * than {@link #MAX_RAW_LENGTH} is refused before anything is allocated for it, and a frame that
 * does not decompress to exactly the length is refused. Not thread-safe: one per view.
 */
final class CompressedField {
  /** Most bytes a compressed value may claim to decompress to: a segment's largest size. */
  static final long MAX_RAW_LENGTH = 1L << 30;

  private static final int MIN_SCRATCH = 4096;

  private byte[] field;
  private byte[] value;
  private MemorySegment valueData;

  /**
   * The length varint at the start of the field {@code src[at, at + fieldLength)}: the value's
   * length shifted left by 8 and the varint's size in the low byte; -1 if malformed, or if the
   * length is more than the frame after it could decompress to ({@link #plausible}).
   */
  static long lengthVarint(byte[] src, int at, long fieldLength, ValueDictionary dictionary) {
    long end = Math.min(at + fieldLength, src.length);
    long v = Varint.read(MemorySegment.ofArray(src), at, end, Varint.MAX_INT_BYTES);
    if (v < 0
        || (v & 0xFF) >= fieldLength
        || !plausible(v >>> 8, fieldLength - (v & 0xFF), dictionary)) {
      return -1;
    }
    return v;
  }

  /**
   * Whether {@code raw}, the length a compressed field claims for its value, is one its frame of
   * {@code frameLength} bytes can decompress to: checked before anything is allocated for the value
   * (see {@link ValueDictionary#maxDecompressedLength}), so that a damaged or forged field of a few
   * bytes cannot make a read allocate a gibibyte. Without a dictionary the value cannot be
   * decompressed at all; its claim is held to the most generous codec's bound.
   */
  private static boolean plausible(long raw, long frameLength, ValueDictionary dictionary) {
    dev.cellar.Compression codec =
        dictionary == null ? dev.cellar.Compression.ZSTD : dictionary.codec();
    return raw <= MAX_RAW_LENGTH
        && raw <= ValueDictionary.maxDecompressedLength(codec, (int) frameLength);
  }

  /** The field's bytes copied off {@code log} from {@code offset}, in this field's own array. */
  byte[] copy(MemorySegment log, long offset, int fieldLength) {
    if (field == null || field.length < fieldLength) {
      field = new byte[Math.max(fieldLength, MIN_SCRATCH)];
    }
    MemorySegment.copy(log, ValueLayout.JAVA_BYTE, offset, field, 0, fieldLength);
    return field;
  }

  /** The value of the field {@code src[at, at + fieldLength)} in a new array; null if damaged. */
  static byte[] decompressed(byte[] src, int at, int fieldLength, ValueDictionary dictionary) {
    long v = lengthVarint(src, at, fieldLength, dictionary);
    if (v < 0) {
      return null;
    }
    byte[] out = new byte[(int) (v >>> 8)];
    return decompress(src, at, fieldLength, v, out, dictionary) ? out : null;
  }

  /**
   * Decompresses the field {@code src[at, at + fieldLength)} into this field's value array ({@link
   * #valueData()}); returns the value's length, or -1 if damaged.
   */
  long inflate(byte[] src, int at, int fieldLength, ValueDictionary dictionary) {
    long v = lengthVarint(src, at, fieldLength, dictionary);
    if (v < 0) {
      return -1;
    }
    int raw = (int) (v >>> 8);
    if (value == null || value.length < raw) {
      value = new byte[Math.max(raw, MIN_SCRATCH)];
      valueData = MemorySegment.ofArray(value);
    }
    return decompress(src, at, fieldLength, v, value, dictionary) ? raw : -1;
  }

  /** The value {@link #inflate} decompressed last, from index 0. */
  MemorySegment valueData() {
    return valueData;
  }

  private static boolean decompress(
      byte[] src,
      int at,
      int fieldLength,
      long lengthVarint,
      byte[] out,
      ValueDictionary dictionary) {
    int prefix = (int) (lengthVarint & 0xFF);
    int raw = (int) (lengthVarint >>> 8);
    return dictionary != null
        && dictionary.decompress(src, at + prefix, fieldLength - prefix, out, 0, raw);
  }

  /** What to say of a field that does not decompress. */
  static String why(ValueDictionary dictionary) {
    return dictionary == null
        ? "compressed in a segment that names no dictionary"
        : "not a value of dictionary " + Long.toHexString(dictionary.id());
  }
}
