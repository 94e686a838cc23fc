package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.Function;

/**
 * The byte-level operations a {@link TypedMap} is a view over, with the meaning {@link Cellar}
 * gives them. The embedded engine provides them ({@link TypedMap#of(Cellar, String, Codec, Codec)}
 * adapts a {@code Cellar}), and so does a client of a remote server, so that one typed map, with
 * the same codecs, works in both places.
 */
public interface TypedMapStore {
  /** As {@link Cellar#put(byte[], byte[])}. */
  void put(byte[] key, byte[] value);

  /** As {@link Cellar#put(byte[], byte[], Duration)}. */
  void put(byte[] key, byte[] value, Duration ttl);

  /** As {@link Cellar#read(byte[], Function)}: null, without calling the reader, when absent. */
  <R> R read(byte[] key, Function<MemorySegment, R> reader);

  /** As {@link Cellar#delete(byte[])}. */
  boolean delete(byte[] key);

  /** As {@link Cellar#contains(byte[])}. */
  boolean contains(byte[] key);

  /** As {@link Cellar#scan(byte[])}; close the cursor. */
  Cursor scan(byte[] prefix);
}
