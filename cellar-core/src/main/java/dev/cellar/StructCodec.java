package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link Codecs#struct}: a struct's bytes as they are ({@code docs/format/struct.md}). Encoding
 * copies them once into the array the store takes; decoding checks the length, then copies the
 * value once into a heap array the new flyweight wraps, since {@link Codec#decode}'s segment is
 * valid only during the call. No field is touched either way.
 */
final class StructCodec<T extends Struct> implements Codec<T> {
  private final StructType<T> type;

  StructCodec(StructType<T> type) {
    this.type = type;
  }

  @Override
  public byte[] encode(T value) {
    if (value.type() != type) {
      throw new IllegalArgumentException(
          "a codec of " + type.name() + " structs was given a " + value.type().name() + " struct");
    }
    return value.toBytes();
  }

  @Override
  public T decode(MemorySegment bytes) {
    type.checkLength(bytes.byteSize());
    return type.wrap(MemorySegment.ofArray(bytes.toArray(ValueLayout.JAVA_BYTE)));
  }

  @Override
  public String toString() {
    return "Codecs.struct(" + type.name() + ")";
  }
}
