package dev.cellar.bench.codecs;

import org.apache.fory.Fory;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Apache Fory used directly, the way the seed used fast-serialization: one {@code Fory} for the one
 * benchmark thread, Java-native mode, classes registered by id, and no schema evolution (the seed's
 * serializers had none either). With reference tracking it matches the seed's "fast-Ser"; without,
 * its "fast-Ser (no shared refs)".
 *
 * <p>Encoding serializes into one reused buffer and decoding reads from a reused buffer pointed at
 * each message's bytes, so the only allocations are the decoded objects.
 */
final class ForyApproach extends EncodingApproach {
  private final boolean trackReferences;
  private final Fory fory;
  private final MemoryBuffer out = MemoryBuffer.newHeapBuffer(256);
  private final MemoryBuffer in = MemoryBuffer.fromByteArray(new byte[0]);
  private final byte[][] encoded;

  ForyApproach(PriceUpdate[] messages, boolean trackReferences) {
    super(messages);
    this.trackReferences = trackReferences;
    fory =
        Fory.builder()
            .withXlang(false)
            .requireClassRegistration(true)
            .withCompatible(false)
            .withRefTracking(trackReferences)
            .build();
    fory.register(Instrument.class, 100);
    fory.register(PriceUpdate.class, 101);
    fory.ensureSerializersCompiled();
    encoded = new byte[messages.length][];
    for (int i = 0; i < messages.length; i++) {
      encoded[i] = fory.serialize(messages[i]);
    }
  }

  @Override
  String label() {
    return trackReferences ? "Fory" : "Fory (no shared refs)";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return fory.serialize(message).length;
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    return (PriceUpdate) fory.deserialize(fory.serialize(message));
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      out.writerIndex(0);
      fory.serialize(out, messages[index(i)]);
      written += out.writerIndex();
    }
    return written;
  }

  @Override
  long decodeBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      byte[] bytes = encoded[index(i)];
      in.pointTo(bytes, 0, bytes.length);
      in.readerIndex(0);
      sum += ((PriceUpdate) fory.deserialize(in)).checksum();
    }
    return sum;
  }

  @Override
  long roundTripBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      out.writerIndex(0);
      out.readerIndex(0);
      fory.serialize(out, messages[index(i)]);
      sum += ((PriceUpdate) fory.deserialize(out)).checksum();
    }
    return sum;
  }
}
