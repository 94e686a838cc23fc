package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The memory a segment file is appended in when it is written with {@code O_DIRECT} ({@code
 * CellarOptions.io(IoMode.DIRECT)}): appends are copied into {@link #memory()}, which belongs to
 * the process and not to the page cache, and {@link #writeOut} sends whole 4 KiB blocks of it to
 * the file, past the page cache. Once the file is complete, {@link #mapFile} puts a read-only
 * mapping of the file over the same addresses, so that a reader holding the memory keeps reading
 * the same bytes, now from the file.
 *
 * <p>{@link #writeOut} calls for one file come one at a time (the segment serialises them); reads
 * of the memory may run beside them and beside {@link #mapFile}.
 */
public interface DirectAppender extends AutoCloseable {
  /** The file's bytes from offset 0, as long as the file may grow; zero where nothing was put. */
  MemorySegment memory();

  /**
   * Writes the blocks of {@link #memory()} that cover {@code [from, to)} to the same offsets of the
   * file. Not durable until the file is forced.
   *
   * @throws IOException naming "No space left on device" when the disk is full
   */
  void writeOut(long from, long to) throws IOException;

  /**
   * Replaces {@link #memory()}'s pages, at the same addresses, with a read-only shared mapping of
   * the file, whose first bytes must by now hold what the memory holds; returns false if it could
   * not (the memory then stays as it is, correct but resident).
   */
  boolean mapFile();

  /** Closes the file; the memory stays until the arena it was allocated in closes. */
  @Override
  void close();
}
