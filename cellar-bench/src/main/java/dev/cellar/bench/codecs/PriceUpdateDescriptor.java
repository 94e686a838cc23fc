package dev.cellar.bench.codecs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte layout of a price update as a flat, fixed-size struct: the one place that knows its
 * offsets. {@link PriceUpdateFlyweight} reads and writes through these constants.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  -.
 *  |          Instrument mnemonic: 8 ASCII bytes, NUL-padded        |   |
 *  |                                                               |   |
 *  +---------------------------------------------------------------+   |
 *  |                      Instrument market id                     |   | instrument
 *  |                          (64 bits)                            |   | (24 bytes)
 *  +---------------------------------------------------------------+   |
 *  |                         Instrument id                         |   |
 *  |                          (64 bits)                            |   |
 *  +---------------------------------------------------------------+  -'
 *  |                    Price (IEEE 754 double)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      Quantity (32 bits)                       |
 *  +---------------------------------------------------------------+
 *  |                   Reserved (32 bits, zero)                    |
 *  +---------------------------------------------------------------+
 *  |               Exchange timestamp, epoch nanoseconds           |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                Send timestamp, epoch nanoseconds              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>All fields are little-endian and naturally aligned relative to the start of the struct: the
 * reserved word pads the quantity so that the timestamps fall on 8-byte boundaries. The struct is
 * 56 bytes and has no header: a reader knows from where it found the bytes what they are.
 */
public final class PriceUpdateDescriptor {
  /** Characters of a mnemonic; shorter ones are padded with NUL bytes. */
  public static final int MNEMONIC_LENGTH = 8;

  public static final int INSTRUMENT_OFFSET = 0;
  public static final int MNEMONIC_OFFSET = INSTRUMENT_OFFSET;
  public static final int MARKET_ID_OFFSET = MNEMONIC_OFFSET + MNEMONIC_LENGTH;
  public static final int INSTRUMENT_ID_OFFSET = MARKET_ID_OFFSET + Long.BYTES;
  public static final int INSTRUMENT_LENGTH = INSTRUMENT_ID_OFFSET + Long.BYTES - INSTRUMENT_OFFSET;

  public static final int PRICE_OFFSET = INSTRUMENT_OFFSET + INSTRUMENT_LENGTH;
  public static final int QUANTITY_OFFSET = PRICE_OFFSET + Double.BYTES;
  public static final int RESERVED_OFFSET = QUANTITY_OFFSET + Integer.BYTES;
  public static final int EXCHANGE_TIME_OFFSET = RESERVED_OFFSET + Integer.BYTES;
  public static final int SEND_TIME_OFFSET = EXCHANGE_TIME_OFFSET + Long.BYTES;

  /** Bytes of one price update. */
  public static final int LENGTH = SEND_TIME_OFFSET + Long.BYTES;

  static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfDouble DOUBLE =
      ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private PriceUpdateDescriptor() {}

  /** Throws unless a whole struct fits in {@code segment} at {@code offset}. */
  public static void checkFits(MemorySegment segment, long offset) {
    if (offset < 0 || offset > segment.byteSize() - LENGTH) {
      throw new IndexOutOfBoundsException(
          "a price update needs "
              + LENGTH
              + " bytes at offset "
              + offset
              + ", the segment has "
              + segment.byteSize());
    }
  }

  /**
   * Throws unless the struct at {@code offset} is well formed: a mnemonic of printable ASCII
   * followed only by NUL padding, and a zero reserved word.
   */
  public static void validate(MemorySegment segment, long offset) {
    checkFits(segment, offset);
    boolean padding = false;
    for (int i = 0; i < MNEMONIC_LENGTH; i++) {
      byte b = segment.get(ValueLayout.JAVA_BYTE, offset + MNEMONIC_OFFSET + i);
      if (b == 0) {
        padding = true;
      } else if (padding || b < 0x20 || b > 0x7e) {
        throw new IllegalArgumentException(
            "price update at offset "
                + offset
                + ": mnemonic byte "
                + i
                + " is 0x"
                + Integer.toHexString(b & 0xff)
                + ", expected printable ASCII before any NUL");
      }
    }
    int reserved = segment.get(INT, offset + RESERVED_OFFSET);
    if (reserved != 0) {
      throw new IllegalArgumentException(
          "price update at offset " + offset + ": reserved word is " + reserved + ", expected 0");
    }
  }

  /**
   * A mnemonic as the 8 bytes the struct stores, read as one little-endian long: lets the flyweight
   * compare and checksum mnemonics without making a {@code String}.
   */
  public static long mnemonicBits(CharSequence mnemonic) {
    int length = mnemonic.length();
    if (length > MNEMONIC_LENGTH) {
      throw new IllegalArgumentException(
          "a mnemonic has at most " + MNEMONIC_LENGTH + " characters, got \"" + mnemonic + "\"");
    }
    long bits = 0;
    for (int i = 0; i < length; i++) {
      char c = mnemonic.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new IllegalArgumentException(
            "a mnemonic is printable ASCII, got \""
                + mnemonic
                + "\" with U+"
                + Integer.toHexString(c)
                + " at "
                + i);
      }
      bits |= (long) c << (Byte.SIZE * i);
    }
    return bits;
  }
}
