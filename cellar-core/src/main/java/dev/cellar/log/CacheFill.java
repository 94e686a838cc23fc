package dev.cellar.log;

import dev.cellar.io.BlockReads;
import dev.cellar.io.DirectReader;
import java.lang.foreign.MemorySegment;

/**
 * Reads into the read cache, all at once, the blocks a batch of point reads is about to miss, so
 * that the device serves the batch's misses in parallel ({@link BlockReads}) where the reads
 * themselves would wait for them one after another. The batch's reads then find their blocks
 * cached. For stores read with {@code io direct}; one per thread, reused from batch to batch.
 *
 * <p>Two rounds: the blocks the records start in (and the next one when a record starts too close
 * to a block's end for its header to fit), then, once their headers are readable from the cache,
 * the further blocks of the records that reach past them. With 1 KiB values about a quarter of the
 * records cross into a second block.
 *
 * <p>Only a hint: a record whose segment is retired meanwhile, a read that fails and a batch that
 * finds a single miss are left to the reads themselves, which report what goes wrong. A batch of
 * one miss is not worth a round trip through the batch reader.
 */
public final class CacheFill implements BlockReads.Sink {
  private static final int BLOCK = BlockReads.BLOCK_BYTES;

  /** Room for a header at a record's start (as the reads take it). */
  private static final int HEADER_BYTES = 64;

  private Segment[] segments = new Segment[32];
  private long[] offsets = new long[32];
  private int count;

  private final Segment[] readSegments = new Segment[BlockReads.MAX_BATCH];
  private final long[] readBlocks = new long[BlockReads.MAX_BATCH];
  private final DirectReader[] readers = new DirectReader[BlockReads.MAX_BATCH];
  private final long[] positions = new long[BlockReads.MAX_BATCH];
  private int reads;
  private int filled;

  private final RecordView header = new RecordView();

  /** Adds the record at {@code offset} of {@code segment} (read through the cache) to the batch. */
  public void add(Segment segment, long offset) {
    if (count == segments.length) {
      segments = java.util.Arrays.copyOf(segments, count * 2);
      offsets = java.util.Arrays.copyOf(offsets, count * 2);
    }
    segments[count] = segment;
    offsets[count++] = offset;
  }

  /** Whether the batch has any record. */
  public boolean isEmpty() {
    return count == 0;
  }

  /**
   * Reads the batch's missing blocks with {@code blockReads}, and forgets the batch. Returns how
   * many blocks were read.
   */
  public int fill(BlockReads blockReads) {
    try {
      reads = 0;
      filled = 0;
      for (int i = 0; i < count; i++) {
        long offset = offsets[i];
        long end = segments[i].end();
        if (offset < end) {
          want(segments[i], offset / BLOCK, blockReads);
          if (offset % BLOCK > BLOCK - HEADER_BYTES && (offset / BLOCK + 1) * BLOCK < end) {
            want(segments[i], offset / BLOCK + 1, blockReads);
          }
        }
      }
      if (reads < 2 && filled == 0) {
        return 0;
      }
      flush(blockReads);
      for (int i = 0; i < count; i++) {
        Segment segment = segments[i];
        long offset = offsets[i];
        long end = segment.end();
        long length = offset < end ? recordLength(segment, offset, end) : -1;
        long first = offset / BLOCK + (offset % BLOCK > BLOCK - HEADER_BYTES ? 2 : 1);
        for (long b = first; length > 0 && b * BLOCK < offset + length; b++) {
          want(segment, b, blockReads);
        }
      }
      flush(blockReads);
      return filled;
    } finally {
      java.util.Arrays.fill(segments, 0, count, null); // no reference kept to a retired segment
      java.util.Arrays.fill(readSegments, null);
      java.util.Arrays.fill(readers, null);
      count = 0;
      reads = 0;
    }
  }

  private long recordLength(Segment segment, long offset, long end) {
    try {
      return header.directLength(segment, offset, end);
    } catch (RuntimeException e) {
      return -1; // retired, or unreadable: the read itself will say
    }
  }

  /** Queues block {@code block} of {@code segment} unless cached or queued; reads a full queue. */
  private void want(Segment segment, long block, BlockReads blockReads) {
    for (int i = 0; i < reads; i++) {
      if (readSegments[i] == segment && readBlocks[i] == block) {
        return;
      }
    }
    DirectReader reader;
    try {
      if (!segment.directReads() || segment.blockCached(block)) {
        return;
      }
      reader = segment.directReader();
    } catch (RuntimeException e) {
      return; // retired meanwhile
    }
    if (reads == BlockReads.MAX_BATCH) {
      flush(blockReads);
    }
    readSegments[reads] = segment;
    readBlocks[reads] = block;
    readers[reads] = reader;
    positions[reads++] = block * BLOCK;
  }

  private void flush(BlockReads blockReads) {
    if (reads > 0) {
      blockReads.readAll(readers, positions, reads, this);
      filled += reads;
    }
    reads = 0;
  }

  @Override
  public void block(int i, MemorySegment block) {
    try {
      readSegments[i].cacheBlock(readBlocks[i], block);
    } catch (RuntimeException e) {
      // retired meanwhile
    }
  }
}
