package dev.cellar.bench.codecs;

/**
 * One way of turning price updates into bytes and back, timed in batches.
 *
 * <p>Each subclass loops over its own batch, so that the loop's calls stay monomorphic and the JIT
 * compiles each approach as if it ran alone; the timing loop pays one megamorphic call per batch,
 * not per message. Batches cycle through the sample messages and return a value folded from what
 * they produced (byte counts for encoding, every field's checksum for decoding), which the caller
 * consumes so that no work can be optimised away.
 *
 * <p>Owned by the one thread that runs the benchmark.
 */
abstract class EncodingApproach implements AutoCloseable {
  final PriceUpdate[] messages;
  private final int mask;
  private int next;

  EncodingApproach(PriceUpdate[] messages) {
    if (Integer.bitCount(messages.length) != 1) {
      throw new IllegalArgumentException(
          "the number of sample messages must be a power of two, got " + messages.length);
    }
    this.messages = messages;
    this.mask = messages.length - 1;
  }

  /** The row label in the table. */
  abstract String label();

  /** Bytes that {@code message} encodes to. */
  abstract int encodedLength(PriceUpdate message);

  /** Encodes then decodes {@code message} into a new object, for verification. */
  abstract PriceUpdate roundTripToObject(PriceUpdate message);

  /** Encodes messages {@code first...first+count-1} (modulo the samples); returns bytes written. */
  abstract long encodeBatch(int first, int count);

  /** Decodes the pre-encoded messages {@code first...}; returns the sum of their checksums. */
  abstract long decodeBatch(int first, int count);

  /** Encodes then decodes each message; returns the sum of the decoded checksums. */
  abstract long roundTripBatch(int first, int count);

  /** Runs {@code count} operations from where the last batch stopped. */
  final long run(Operation operation, int count) {
    int first = next;
    next = (first + count) & mask;
    return switch (operation) {
      case ENCODE -> encodeBatch(first, count);
      case DECODE -> decodeBatch(first, count);
      case ROUND_TRIP -> roundTripBatch(first, count);
    };
  }

  final int index(int i) {
    return i & mask;
  }

  /** Checks every message survives encoding, and that the batches fold what they should. */
  final void verify() {
    long expected = 0;
    for (PriceUpdate message : messages) {
      PriceUpdate back = roundTripToObject(message);
      if (!message.equals(back)) {
        throw new IllegalStateException(label() + " turned " + message + " into " + back);
      }
      expected += message.checksum();
    }
    long decoded = decodeBatch(0, messages.length);
    long roundTripped = roundTripBatch(0, messages.length);
    if (decoded != expected || roundTripped != expected) {
      throw new IllegalStateException(
          label()
              + " batches fold "
              + decoded
              + " (decode) and "
              + roundTripped
              + " (round trip), expected "
              + expected);
    }
  }

  @Override
  public void close() {}
}
