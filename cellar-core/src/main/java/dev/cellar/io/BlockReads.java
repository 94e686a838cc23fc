package dev.cellar.io;

import java.lang.foreign.MemorySegment;

/**
 * Reads a batch of blocks from files opened for direct reads, all at once, so that the device
 * serves them in parallel: a drive that does 17 K random 4 KiB reads a second one at a time does 78
 * K at a queue depth of 32 (issue 21). A batch read's cache misses (MGET, pipelined GETs, {@code
 * getAll}) go through here before the reads themselves, which then hit the read cache.
 *
 * <p>An implementation owns the buffers it reads into and hands each block to a {@link Sink} on the
 * calling thread, so no buffer is ever freed under a read the kernel still has in flight.
 */
public interface BlockReads extends AutoCloseable {
  /** The bytes of a block, and the alignment of its position. */
  int BLOCK_BYTES = 4096;

  /** The most blocks one {@link #readAll} takes. */
  int MAX_BATCH = 64;

  /** Receives the blocks of a batch. */
  interface Sink {
    /**
     * Block {@code i} of the batch, read: {@code block} holds {@link #BLOCK_BYTES}, zero past the
     * end of the file; valid only during the call.
     */
    void block(int i, MemorySegment block);
  }

  /**
   * Reads block {@code positions[i]} (a multiple of {@link #BLOCK_BYTES}) of {@code files[i]} for
   * each {@code i < n} ({@code n <=} {@link #MAX_BATCH}) and hands each one read to {@code sink};
   * returns once every read has ended. A read that fails, or whose file is closed meanwhile, is
   * left out: the caller reads it again on its own path, which reports the failure.
   */
  void readAll(DirectReader[] files, long[] positions, int n, Sink sink);

  /** What reads the batches: for reports. */
  String name();

  @Override
  void close();

  /** Reads one block after another: where nothing better is available (and to measure against). */
  static BlockReads serial() {
    return new SerialBlockReads();
  }
}
