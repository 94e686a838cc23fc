package dev.cellar.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The read cache against files it must reproduce byte for byte: reads spanning blocks, eviction
 * under a cache much smaller than the files, many threads at once, and S3-FIFO's promise that a
 * one-pass scan does not flush the blocks being hit.
 */
class BlockCacheTest {
  /** A file of {@code blocks} blocks whose byte at p is a function of the file and p. */
  private static byte at(long file, long p) {
    long h = (file * 0x9E3779B97F4A7C15L) ^ (p * 0xC2B2AE3D27D4EB4FL);
    return (byte) (h ^ (h >>> 29));
  }

  private static final class Files implements BlockCache.BlockLoader {
    final long file;
    final long size;
    final AtomicLong loads = new AtomicLong();

    Files(long file, long size) {
      this.file = file;
      this.size = size;
    }

    @Override
    public void load(long index, MemorySegment into) {
      loads.incrementAndGet();
      long from = index * BlockCache.BLOCK_BYTES;
      for (int i = 0; i < BlockCache.BLOCK_BYTES && from + i < size; i++) {
        into.set(ValueLayout.JAVA_BYTE, i, at(file, from + i));
      }
    }
  }

  private static byte[] expected(long file, long position, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = at(file, position + i);
    }
    return out;
  }

  @Test
  void readsReproduceTheFilesAcrossBlocksAndEvictions() throws Exception {
    try (BlockCache cache = new BlockCache(64 * BlockCache.BLOCK_BYTES)) {
      List<Files> files = new ArrayList<>();
      for (int f = 0; f < 3; f++) {
        files.add(new Files(BlockCache.newFileId(), 1000L * BlockCache.BLOCK_BYTES + 123));
      }
      SplittableRandom r = new SplittableRandom(1);
      for (int i = 0; i < 20_000; i++) {
        Files file = files.get(r.nextInt(files.size()));
        int length = 1 + r.nextInt(3 * BlockCache.BLOCK_BYTES);
        long position = r.nextLong(file.size - length);
        byte[] got = new byte[length];
        cache.read(file.file, position, MemorySegment.ofArray(got), 0, length, file);
        assertArrayEquals(expected(file.file, position, length), got, "read " + i);
      }
      assertTrue(cache.misses() > 0 && cache.hits() > 0);
      assertTrue(cache.capacityBlocks() <= 64);
    }
  }

  @Test
  void manyThreadsReadTheSameBlocksAndGetTheirBytes() throws Exception {
    try (BlockCache cache = new BlockCache(256 * BlockCache.BLOCK_BYTES)) {
      Files file = new Files(BlockCache.newFileId(), 2000L * BlockCache.BLOCK_BYTES);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int seed = t;
          done.add(
              pool.submit(
                  () -> {
                    SplittableRandom r = new SplittableRandom(seed);
                    for (int i = 0; i < 20_000; i++) {
                      // Skewed: most reads in the first 200 blocks, which then compete for slots.
                      long block = r.nextInt(10) < 8 ? r.nextInt(200) : r.nextInt(2000);
                      int length = 1 + r.nextInt(1500);
                      long position =
                          Math.min(
                              block * BlockCache.BLOCK_BYTES + r.nextInt(BlockCache.BLOCK_BYTES),
                              file.size - length);
                      byte[] got = new byte[length];
                      cache.read(file.file, position, MemorySegment.ofArray(got), 0, length, file);
                      assertArrayEquals(expected(file.file, position, length), got);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aScanDoesNotFlushTheBlocksBeingHit() throws Exception {
    int capacity = 1024;
    try (BlockCache cache = new BlockCache((long) capacity * BlockCache.BLOCK_BYTES)) {
      Files hot = new Files(BlockCache.newFileId(), 400L * BlockCache.BLOCK_BYTES);
      Files scanned = new Files(BlockCache.newFileId(), 20_000L * BlockCache.BLOCK_BYTES);
      // The hot set, read a few times: it reaches the main queues.
      readBlocks(cache, hot, 400, 3);
      // A scan of twenty times the cache, each block once.
      readBlocks(cache, scanned, 20_000, 1);
      long before = hot.loads.get();
      readBlocks(cache, hot, 400, 1);
      long reloaded = hot.loads.get() - before;
      // Under LRU every hot block would be gone; S3-FIFO keeps all but those its partitions'
      // rounding leaves without room.
      assertTrue(reloaded < 40, "hot blocks reloaded after the scan: " + reloaded + " of 400");
      assertEquals(400 * 3 + 20_000 + 400, cache.hits() + cache.misses());
    }
  }

  /**
   * A batch reads ahead more blocks than the small queue's tenth into a full cache, then its reader
   * comes: every block it read ahead is still there. Were unread read-ahead blocks not spared by
   * the small queue, the batch's first blocks would be evicted by its last.
   */
  @Test
  void aBatchLargerThanTheSmallQueueKeepsWhatItReadAhead() throws Exception {
    int capacity = 256; // one partition: a small queue of 25
    try (BlockCache cache = new BlockCache((long) capacity * BlockCache.BLOCK_BYTES)) {
      Files hot = new Files(BlockCache.newFileId(), 230L * BlockCache.BLOCK_BYTES);
      Files scanned = new Files(BlockCache.newFileId(), 500L * BlockCache.BLOCK_BYTES);
      Files batch = new Files(BlockCache.newFileId(), 48L * BlockCache.BLOCK_BYTES);
      // A hot set in the main queue, then a scan: the small queue holds its tenth, the cache is
      // full.
      readBlocks(cache, hot, 230, 3);
      readBlocks(cache, scanned, 500, 1);
      MemorySegment block = MemorySegment.ofArray(new byte[BlockCache.BLOCK_BYTES]);
      for (long b = 0; b < 48; b++) {
        block.fill((byte) 0);
        batch.load(b, block);
        cache.insert(batch.file, b, block);
      }
      long missesBefore = cache.misses();
      for (long b = 0; b < 48; b++) {
        byte[] got = new byte[100];
        cache.read(
            batch.file, b * BlockCache.BLOCK_BYTES + 7, MemorySegment.ofArray(got), 0, 100, batch);
        assertArrayEquals(expected(batch.file, b * BlockCache.BLOCK_BYTES + 7, 100), got);
      }
      assertEquals(48, batch.loads.get(), "blocks loaded again by their reader");
      assertEquals(missesBefore, cache.misses());
    }
  }

  /** Reads a byte of each of the first {@code blocks} blocks of {@code f}, {@code rounds} times. */
  private static void readBlocks(BlockCache cache, Files f, long blocks, int rounds)
      throws Exception {
    byte[] one = new byte[1];
    for (int round = 0; round < rounds; round++) {
      for (long b = 0; b < blocks; b++) {
        cache.read(f.file, b * BlockCache.BLOCK_BYTES, MemorySegment.ofArray(one), 0, 1, f);
      }
    }
  }
}
