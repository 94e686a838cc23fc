package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Reads of a file that bypass the page cache ({@code O_DIRECT} on the platform), for a store that
 * keeps its own read cache ({@code CellarOptions.io(IoMode.DIRECT)}). Positions and lengths are
 * multiples of 4 KiB, and buffers are 4 KiB aligned.
 *
 * <p>Safe to use from many threads; {@link #close} may come while reads are in progress, which it
 * does not disturb (later reads throw {@link IllegalStateException}).
 */
public interface DirectReader extends AutoCloseable {
  /**
   * Reads up to {@code into.byteSize()} bytes from {@code position}; returns the bytes read, fewer
   * only at the end of the file.
   *
   * @throws IllegalStateException once closed
   */
  long read(long position, MemorySegment into) throws IOException;

  /**
   * Drops the file's pages from the page cache, if there is one, and from {@code mapping} (the
   * file's mapping by the same file system's {@link StoreFile#map}); a hint, which must not change
   * what the mapping reads.
   */
  default void dropPageCache(MemorySegment mapping) {}

  @Override
  void close();
}
