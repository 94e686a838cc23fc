package dev.cellar.bench.codecs;

import dev.cellar.fory.ForyCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Fory as Cellar uses it, through {@link ForyCodec}: a pool of Fory instances, compatible mode
 * (field names travel with each value, so stored classes can evolve), a new {@code byte[]} per
 * encoded value, and decoding in place from native memory, as from a log segment.
 *
 * <p>Against {@link ForyApproach} this row prices Cellar's choices: the pool's borrow and return,
 * the allocation, and schema evolution.
 */
final class ForyCodecApproach extends EncodingApproach {
  private final ForyCodec<PriceUpdate> codec = ForyCodec.of(PriceUpdate.class, Instrument.class);
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment[] encoded;

  ForyCodecApproach(PriceUpdate[] messages) {
    super(messages);
    byte[][] bytes = new byte[messages.length][];
    long total = 0;
    for (int i = 0; i < messages.length; i++) {
      bytes[i] = codec.encode(messages[i]);
      total += bytes[i].length;
    }
    // One off-heap region holding the values end to end, as a log segment does.
    MemorySegment log = arena.allocate(total);
    encoded = new MemorySegment[messages.length];
    long offset = 0;
    for (int i = 0; i < messages.length; i++) {
      encoded[i] = log.asSlice(offset, bytes[i].length).copyFrom(MemorySegment.ofArray(bytes[i]));
      encoded[i] = encoded[i].asReadOnly();
      offset += bytes[i].length;
    }
  }

  @Override
  String label() {
    return "ForyCodec (Cellar's defaults)";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return codec.encode(message).length;
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    return codec.decode(MemorySegment.ofArray(codec.encode(message)));
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      written += codec.encode(messages[index(i)]).length;
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
      sum += codec.decode(MemorySegment.ofArray(codec.encode(messages[index(i)]))).checksum();
    }
    return sum;
  }

  @Override
  public void close() {
    arena.close();
  }
}
