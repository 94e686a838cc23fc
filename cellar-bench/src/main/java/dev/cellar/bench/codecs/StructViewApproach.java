package dev.cellar.bench.codecs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Cellar's {@link dev.cellar.Struct} used in place, as inside {@code Cellar.read} or a {@code
 * ValueSink}: one {@link PriceUpdateStruct} moved over each value with no copy and no object, as
 * the {@code flyweight} row does with {@link PriceUpdateFlyweight}. The same memory, loops and
 * batches as {@link FlyweightApproach}, so the two rows differ only in how a field is reached:
 * constant offsets written by hand, or {@code VarHandle}s derived from a layout's names.
 */
final class StructViewApproach extends EncodingApproach {
  private static final long LENGTH = PriceUpdateStruct.TYPE.byteSize();

  private final Arena arena = Arena.ofConfined();
  private final MemorySegment outgoing;
  private final MemorySegment encoded;
  private final PriceUpdateStruct writer = PriceUpdateStruct.TYPE.allocate();
  private final PriceUpdateStruct reader = PriceUpdateStruct.TYPE.allocate();

  StructViewApproach(PriceUpdate[] messages) {
    super(messages);
    outgoing = arena.allocate(LENGTH * messages.length, Long.BYTES);
    encoded = arena.allocate(LENGTH * messages.length, Long.BYTES);
    for (int i = 0; i < messages.length; i++) {
      writer.wrap(encoded, i * LENGTH, LENGTH);
      writer.set(messages[i]);
      PriceUpdateDescriptor.validate(encoded, i * LENGTH);
    }
  }

  @Override
  String label() {
    return "Struct in place (layout-derived)";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return (int) LENGTH;
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    writer.wrap(outgoing, 0, LENGTH);
    writer.set(message);
    reader.wrap(outgoing, 0, LENGTH);
    return reader.toObject();
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      int slot = index(i);
      writer.wrap(outgoing, slot * LENGTH, LENGTH);
      writer.set(messages[slot]);
      written += LENGTH;
    }
    return written;
  }

  @Override
  long decodeBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      reader.wrap(encoded, index(i) * LENGTH, LENGTH);
      sum += reader.checksum();
    }
    return sum;
  }

  @Override
  long roundTripBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      int slot = index(i);
      writer.wrap(outgoing, slot * LENGTH, LENGTH);
      writer.set(messages[slot]);
      reader.wrap(outgoing, slot * LENGTH, LENGTH);
      sum += reader.checksum();
    }
    return sum;
  }

  @Override
  public void close() {
    arena.close();
  }
}
