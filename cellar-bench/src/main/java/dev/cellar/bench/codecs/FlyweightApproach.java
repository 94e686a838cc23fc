package dev.cellar.bench.codecs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The seed's "structs": fields written to and read from native memory through a {@link
 * PriceUpdateFlyweight}, with no object made per message.
 *
 * <p>Encoding writes a message's fields into the next slot of an outgoing ring, as a sender fills
 * its send buffer; a slot per message also keeps the JIT from treating the writes as overwriting
 * each other. Decoding reads every field of structs laid end to end off-heap, as a reader of
 * Cellar's log or of a shared-memory ring would.
 */
final class FlyweightApproach extends EncodingApproach {
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment outgoing;
  private final MemorySegment encoded;
  private final PriceUpdateFlyweight writer = new PriceUpdateFlyweight();
  private final PriceUpdateFlyweight reader = new PriceUpdateFlyweight();

  FlyweightApproach(PriceUpdate[] messages) {
    super(messages);
    long bytes = (long) PriceUpdateDescriptor.LENGTH * messages.length;
    outgoing = arena.allocate(bytes, Long.BYTES);
    encoded = arena.allocate(bytes, Long.BYTES);
    for (int i = 0; i < messages.length; i++) {
      writer.wrap(encoded, (long) i * PriceUpdateDescriptor.LENGTH).set(messages[i]);
      PriceUpdateDescriptor.validate(encoded, (long) i * PriceUpdateDescriptor.LENGTH);
    }
  }

  @Override
  String label() {
    return "flyweight over MemorySegment";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return PriceUpdateDescriptor.LENGTH;
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    writer.wrap(outgoing, 0).set(message);
    return reader.wrap(outgoing, 0).toObject();
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      int slot = index(i);
      writer.wrap(outgoing, (long) slot * PriceUpdateDescriptor.LENGTH).set(messages[slot]);
      written += PriceUpdateDescriptor.LENGTH;
    }
    return written;
  }

  @Override
  long decodeBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      sum += reader.wrap(encoded, (long) index(i) * PriceUpdateDescriptor.LENGTH).checksum();
    }
    return sum;
  }

  @Override
  long roundTripBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      int slot = index(i);
      long offset = (long) slot * PriceUpdateDescriptor.LENGTH;
      writer.wrap(outgoing, offset).set(messages[slot]);
      sum += reader.wrap(outgoing, offset).checksum();
    }
    return sum;
  }

  @Override
  public void close() {
    arena.close();
  }
}
