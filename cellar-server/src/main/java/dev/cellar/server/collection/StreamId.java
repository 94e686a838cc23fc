package dev.cellar.server.collection;

/** A stream entry's id: milliseconds and a sequence number, both unsigned 64-bit. */
public record StreamId(long ms, long seq) implements Comparable<StreamId> {
  public static final StreamId ZERO = new StreamId(0, 0);
  public static final StreamId MAX = new StreamId(-1L, -1L);

  @Override
  public int compareTo(StreamId o) {
    int c = Long.compareUnsigned(ms, o.ms);
    return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
  }

  /** The id just after this one, or this one if it is the largest. */
  public StreamId next() {
    if (seq != -1L) {
      return new StreamId(ms, seq + 1);
    }
    return ms == -1L ? this : new StreamId(ms + 1, 0);
  }

  /** The id just before this one, or this one if it is 0-0. */
  public StreamId previous() {
    if (seq != 0) {
      return new StreamId(ms, seq - 1);
    }
    return ms == 0 ? this : new StreamId(ms - 1, -1L);
  }

  @Override
  public String toString() {
    return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
  }
}
