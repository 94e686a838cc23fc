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
}
