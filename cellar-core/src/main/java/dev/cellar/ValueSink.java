package dev.cellar;

import java.lang.foreign.MemorySegment;

/**
 * Receives a value found by {@link Cellar#read(MemorySegment, long, long, ValueSink)} as a range of
 * the memory that holds it, so that a read creates no object at all: a caller that copies the value
 * somewhere (a reply buffer, a socket) makes one sink and reuses it for every read.
 */
@FunctionalInterface
public interface ValueSink {
  /**
   * Called with the value: the {@code length} bytes of {@code source} from {@code offset}. {@code
   * source} is read-only and valid only during the call; do not keep it or the range.
   */
  void accept(MemorySegment source, long offset, long length);
}
