package dev.cellar;

import java.lang.foreign.MemorySegment;

/**
 * Receives the values of a batch read ({@link Cellar#readAll}) key by key, in the order of the
 * keys, as ranges of the memory that holds them: a caller that copies each value somewhere (a reply
 * buffer) makes one sink and reuses it for every batch.
 */
public interface BatchValueSink {
  /**
   * Called with the value of key {@code index}: the {@code length} bytes of {@code source} from
   * {@code offset}. {@code source} is read-only and valid only during the call; do not keep it.
   */
  void accept(int index, MemorySegment source, long offset, long length);

  /** Called instead of {@link #accept} when key {@code index} is absent or expired. */
  void absent(int index);
}
