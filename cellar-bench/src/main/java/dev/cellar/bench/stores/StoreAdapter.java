package dev.cellar.bench.stores;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The one view of a key-value store that the benchmarks drive: byte-array keys and values, opened
 * on a directory of its own.
 *
 * <p>Threading: {@link #put} and {@link #get} may be called from several threads at once (the
 * two-thread read phase does); {@link #open} and {@link #close} from one thread while no other
 * calls are under way. A thread that has called {@code put} or {@code get} calls {@link
 * #endBatch()} before it finishes its phase, so adapters that group operations into transactions
 * (LMDB) can commit them and release per-thread resources.
 */
public interface StoreAdapter {

  /**
   * Opens, creating if needed, the store in {@code directory} (which exists), sized for about
   * {@code expectedEntries} keys of about {@code averageKeyBytes} bytes and values of {@code
   * valueBytes} bytes. Called again after {@link #close()} to reopen.
   */
  void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes)
      throws IOException;

  /** Stores {@code value} under {@code key}; the adapter may keep neither array. */
  void put(byte[] key, byte[] value);

  /** The value stored under {@code key} as an array the caller may read, or null. */
  byte[] get(byte[] key);

  /**
   * Reads {@code count} keys at once into {@code values} (null for an absent key), through the
   * store's multi-get where it has one; a loop of {@link #get} otherwise.
   */
  default void getAll(byte[][] keys, byte[][] values, int count) {
    for (int i = 0; i < count; i++) {
      values[i] = get(keys[i]);
    }
  }

  /**
   * Stores {@code count} keys and values at once, through the store's batch write where it has one;
   * a loop of {@link #put} otherwise. The adapter may keep none of the arrays.
   */
  default void putAll(byte[][] keys, byte[][] values, int count) {
    for (int i = 0; i < count; i++) {
      put(keys[i], values[i]);
    }
  }

  /** Ends the calling thread's batch: commits what it wrote, releases what it holds. */
  default void endBatch() {}

  /** Releases the store; what was written survives it if {@link #persistent()}. */
  void close() throws IOException;

  /** Whether the store keeps its data across {@link #close()} and {@link #open}. */
  boolean persistent();
}
