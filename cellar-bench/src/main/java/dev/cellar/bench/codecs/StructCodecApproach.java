package dev.cellar.bench.codecs;

import dev.cellar.Codec;
import dev.cellar.Codecs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Cellar's struct codec as a {@code TypedMap} uses it: {@code Codecs.struct} over {@link
 * PriceUpdateStruct}. Encoding writes the fields into one reused struct and copies its 56 bytes
 * into the new {@code byte[]} a put takes; decoding checks a value's length, copies it out of
 * off-heap memory (as out of a log segment) into a new heap struct, and reads every field there.
 *
 * <p>Against the {@code flyweight} row this prices the codec's one copy and one object each way;
 * {@link StructViewApproach} prices the derived accessors alone.
 */
final class StructCodecApproach extends EncodingApproach {
  private final Codec<PriceUpdateStruct> codec = Codecs.struct(PriceUpdateStruct.TYPE);
  private final PriceUpdateStruct writer = PriceUpdateStruct.TYPE.allocate();
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment[] encoded;

  StructCodecApproach(PriceUpdate[] messages) {
    super(messages);
    long length = PriceUpdateStruct.TYPE.byteSize();
    MemorySegment log = arena.allocate(length * messages.length);
    PriceUpdateFlyweight reference = new PriceUpdateFlyweight();
    MemorySegment expected = MemorySegment.ofArray(new byte[PriceUpdateDescriptor.LENGTH]);
    encoded = new MemorySegment[messages.length];
    for (int i = 0; i < messages.length; i++) {
      byte[] bytes = codec.encode(writer.set(messages[i]));
      reference.wrap(expected, 0).set(messages[i]);
      if (!Arrays.equals(bytes, expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))) {
        throw new IllegalStateException(
            "the struct and the hand-written flyweight disagree on " + messages[i]);
      }
      encoded[i] = log.asSlice(i * length, length).copyFrom(MemorySegment.ofArray(bytes));
      encoded[i] = encoded[i].asReadOnly();
    }
  }

  @Override
  String label() {
    return "Codecs.struct (a copy each way)";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return codec.encode(writer.set(message)).length;
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    return codec.decode(MemorySegment.ofArray(codec.encode(writer.set(message)))).toObject();
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      written += codec.encode(writer.set(messages[index(i)])).length;
    }
    return written;
  }

  @Override
  long decodeBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      sum += codec.decode(encoded[index(i)]).checksum();
    }
    return sum;
  }

  @Override
  long roundTripBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      byte[] bytes = codec.encode(writer.set(messages[index(i)]));
      sum += codec.decode(MemorySegment.ofArray(bytes)).checksum();
    }
    return sum;
  }

  @Override
  public void close() {
    arena.close();
  }
}
