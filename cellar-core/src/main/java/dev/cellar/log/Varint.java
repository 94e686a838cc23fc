package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Unsigned LEB128 varints, as in protobuf: 7 bits a byte, low bits first, high bit set on every
 * byte but the last. Decoders are bounded by a limit and report malformed input as -1, never by
 * throwing, because they run over untrusted bytes during recovery.
 */
public final class Varint {
  public static final int MAX_INT_BYTES = 5;

  /** Every stored value fits 55 bits, so 8 bytes; a longer encoding is malformed. */
  public static final int MAX_LONG_BYTES = 8;

  private Varint() {}

  public static int size(long value) {
    int bytes = 1;
    while ((value & ~0x7FL) != 0) {
      value >>>= 7;
      bytes++;
    }
    return bytes;
  }

  /** Writes {@code value} at {@code offset}; returns the offset after it. */
  public static long write(MemorySegment segment, long offset, long value) {
    while ((value & ~0x7FL) != 0) {
      segment.set(ValueLayout.JAVA_BYTE, offset++, (byte) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    segment.set(ValueLayout.JAVA_BYTE, offset++, (byte) value);
    return offset;
  }

  /** Writes {@code value} into {@code out} at {@code offset}; returns the offset after it. */
  public static int write(byte[] out, int offset, long value) {
    while ((value & ~0x7FL) != 0) {
      out[offset++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[offset++] = (byte) value;
    return offset;
  }

  /**
   * Reads a varint of at most {@code maxBytes} bytes at {@code offset}, not reading at or past
   * {@code limit}. Returns {@code value << 8 | length}, or -1 if malformed or cut off; the value
   * must fit 55 bits, which every field Cellar stores does.
   */
  public static long read(MemorySegment segment, long offset, long limit, int maxBytes) {
    long value = 0;
    for (int i = 0; i < maxBytes; i++) {
      if (offset + i >= limit) {
        return -1;
      }
      byte b = segment.get(ValueLayout.JAVA_BYTE, offset + i);
      value |= (long) (b & 0x7F) << (7 * i);
      if (b >= 0) {
        return (value >>> 55) != 0 ? -1 : (value << 8) | (i + 1);
      }
    }
    return -1;
  }

  /** The high bit of each of the seven low bytes of a word: where a varint in them may stop. */
  private static final long WORD_STOP_BITS = 0x0080_8080_8080_8080L;

  /** The seven payload bits of each of the seven low bytes of a word. */
  private static final long WORD_PAYLOAD_BITS = 0x007F_7F7F_7F7F_7F7FL;

  /**
   * Where the varints packed in the seven low bytes of {@code word} (little-endian, as read from
   * memory) stop: a bit at position {@code 8 * i + 7} for a varint ending in byte {@code i}.
   * Decoding from these and {@link #wordField} takes no branch per byte, where a byte loop
   * mispredicts as the lengths vary from record to record.
   */
  public static long wordStops(long word) {
    return ~word & WORD_STOP_BITS;
  }

  /**
   * Where the first three varints in the seven low bytes of {@code word} stop (see {@link
   * #wordStops}): the stop bits of the first, second and third in bits 0-7, 8-15 and 16-23, or -1
   * if fewer than three stop within the seven bytes.
   */
  public static int wordEnds(long word) {
    long stops = wordStops(word);
    if (Long.bitCount(stops) < 3) {
      return -1;
    }
    long later = stops & (stops - 1);
    return Long.numberOfTrailingZeros(stops)
        | Long.numberOfTrailingZeros(later) << 8
        | Long.numberOfTrailingZeros(later & (later - 1)) << 16;
  }

  /**
   * The value of the varint in {@code word} that ends at the stop bit {@code end} (from {@link
   * #wordStops}) and starts after the stop bit {@code after}, or at byte 0 if {@code after} is -1.
   * {@link Long#compress} squeezes out the continuation bits (one {@code pext} where the CPU has
   * BMI2).
   */
  public static long wordField(long word, int after, int end) {
    return Long.compress((word & ((2L << end) - 1)) >>> (after + 1), WORD_PAYLOAD_BITS);
  }
}
