package dev.cellar.io;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;

/** An open file of the store, as the {@link FileIO} seam exposes it. */
public interface StoreFile extends Closeable {
  /** Current length in bytes. */
  long size() throws IOException;

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position}; returns bytes read or -1 at end.
   */
  int read(ByteBuffer dst, long position) throws IOException;

  /** Writes all of {@code src} at {@code position}. */
  void write(ByteBuffer src, long position) throws IOException;

  /**
   * Maps {@code length} bytes from {@code offset}; the mapping lives until {@code arena} closes.
   * Writable mappings write through to the file; private mappings are copy-on-write.
   */
  MemorySegment map(MapKind kind, long offset, long length, Arena arena) throws IOException;

  /**
   * Reserves disk blocks for {@code [offset, offset + length)} so that later writes through a
   * mapping cannot fail for lack of space (which would raise SIGBUS, not an exception). Does not
   * change the file's length.
   *
   * @throws java.io.IOException with "No space left on device" when the disk is full
   */
  void allocate(long offset, long length) throws IOException;

  /**
   * Reserves blocks for {@code [offset, offset + length)} by writing zeros: unlike {@link
   * #allocate}, which leaves unwritten extents that the file system converts (a journal commit) on
   * the first fsync after they are written, zero-written blocks make later fsyncs of data written
   * there data-only. Costs one write of the range. Only for ranges not yet holding data.
   */
  default void zeroFill(long offset, long length) throws IOException {
    java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocateDirect(1 << 20);
    for (long at = offset; at < offset + length; at += zeros.capacity()) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), offset + length - at));
      write(zeros, at);
    }
  }

  /**
   * Tells the kernel this process no longer needs the resident pages of {@code mapping}, a shared
   * ({@link MapKind#READ_ONLY} or {@link MapKind#READ_WRITE}) mapping of this file, so they stop
   * counting towards its resident size. The data is untouched: it stays in the file and the page
   * cache, and a later access faults it back in. A hint; implementations may do nothing.
   */
  default void releaseResidentPages(MemorySegment mapping) {}

  /**
   * As {@link #releaseResidentPages}, and drops the file's pages from the page cache too ({@code
   * posix_fadvise(DONTNEED)} on the platform), for a file nobody is expected to read again: a later
   * access reads the file anew. A hint; this default only releases the resident pages.
   */
  default void dropCachedPages(MemorySegment mapping) {
    releaseResidentPages(mapping);
  }

  /** Sets the file's length. */
  void truncate(long length) throws IOException;

  /** Flushes the file's data (not necessarily its metadata) to stable storage. */
  void force() throws IOException;

  /** Takes an exclusive lock on the whole file, or returns null if another process holds one. */
  FileLock tryLock() throws IOException;

  /** How a file is mapped. */
  enum MapKind {
    READ_ONLY,
    READ_WRITE,
    PRIVATE
  }
}
