package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The built-in codecs. Object codecs backed by Apache Fory live in the optional {@code cellar-fory}
 * module ({@code dev.cellar.fory.ForyCodec}), which keeps Fory's use of JDK-internal APIs out of
 * the engine.
 */
public final class Codecs {
  private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

  private Codecs() {}

  /** Bytes as they are. */
  public static Codec<byte[]> bytes() {
    return BytesCodec.INSTANCE;
  }

  /** Strings as UTF-8. */
  public static Codec<String> utf8() {
    return Utf8Codec.INSTANCE;
  }

  /** Longs as 8 big-endian bytes, so that byte order equals numeric order for non-negatives. */
  public static Codec<Long> longs() {
    return LongCodec.INSTANCE;
  }

  /**
   * Flyweight structs as their layout's bytes, little-endian ({@code docs/format/struct.md}):
   * encoding copies the struct's bytes once; decoding checks the value's length against the layout
   * and copies it once to the heap for the returned struct. To read a stored struct without the
   * copy, wrap the value in place inside {@link Cellar#read(byte[], java.util.function.Function)}
   * with {@link StructType#wrap}; that view is valid only inside the reader.
   */
  public static <T extends Struct> Codec<T> struct(StructType<T> type) {
    return new StructCodec<>(type);
  }

  private enum BytesCodec implements Codec<byte[]> {
    INSTANCE;

    @Override
    public byte[] encode(byte[] value) {
      return value;
    }

    @Override
    public byte[] decode(MemorySegment bytes) {
      return bytes.toArray(ValueLayout.JAVA_BYTE);
    }
  }

  private enum Utf8Codec implements Codec<String> {
    INSTANCE;

    @Override
    public byte[] encode(String value) {
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(MemorySegment bytes) {
      return new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
  }

  private enum LongCodec implements Codec<Long> {
    INSTANCE;

    @Override
    public byte[] encode(Long value) {
      byte[] out = new byte[Long.BYTES];
      MemorySegment.ofArray(out).set(BIG_ENDIAN_LONG, 0, value);
      return out;
    }

    @Override
    public Long decode(MemorySegment bytes) {
      if (bytes.byteSize() != Long.BYTES) {
        throw new IllegalArgumentException(
            "a long needs 8 bytes, the stored value has " + bytes.byteSize());
      }
      return bytes.get(BIG_ENDIAN_LONG, 0);
    }
  }
}
