package dev.cellar;

import java.lang.foreign.MemorySegment;

/**
 * Converts values of type {@code T} to and from the bytes Cellar stores.
 *
 * @param <T> the type encoded
 */
public interface Codec<T> {
  /** The bytes for {@code value}; must not return null. */
  byte[] encode(T value);

  /** The value for {@code bytes}; the segment is valid only during the call. */
  T decode(MemorySegment bytes);
}
