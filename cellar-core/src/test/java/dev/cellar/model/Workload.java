package dev.cellar.model;

import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.io.FileIO;
import java.time.Duration;

/**
 * The settings of one model run, drawn before its operations: the fsync mode (under {@code always}
 * every acknowledged write must survive a crash; under {@code no} only what a sync covered), how
 * many keys the single-key operations spread over (few, for many overwrites; or enough to grow the
 * index), the shard count, whether the log reserves space by writing zeros, and whether the store
 * is encrypted (one run in four) and compressed (LZ4 in one run in four, zstd in another: a
 * compressed store's compaction compresses sealed segments, so the model's compactions and crashes
 * reach compressed segments), and whether sealed segments are read through the read cache, as a
 * store opened with {@code io direct} reads them (one run in four; the simulated disk has no page
 * cache to bypass, so it is the cache and its path through the engine that the run exercises).
 *
 * <p>Segments are the smallest the engine allows (64 KiB), so the log rolls every few dozen puts
 * and compaction, sealing and the disk-full paths at a roll are reached by short runs; the
 * background compactor and the checkpoint timer are off, so that the model decides when they run.
 */
record Workload(
    Fsync fsync,
    int keys,
    int shards,
    boolean zeroFill,
    boolean encrypted,
    Compression compression,
    IoMode ioMode) {
  /** The key of the runs that encrypt the store. */
  private static final EncryptionKeys KEYS = EncryptionKeys.of(new byte[32]);

  static final int SEGMENT_BYTES = CellarOptions.MIN_SEGMENT_BYTES;
  static final int MAX_VALUE_BYTES = 4 << 10;

  static Workload draw(Choices choices) {
    Fsync fsync = choices.nextBoolean() ? Fsync.ALWAYS : Fsync.NO;
    int keys =
        switch (choices.nextInt(3)) {
          case 0 -> 12;
          case 1 -> 40;
          default -> 300;
        };
    int shards = choices.nextBoolean() ? 2 : 4;
    boolean zeroFill = choices.nextBoolean();
    // Drawn last, so that the other settings of a seed stay what they were before they existed.
    boolean encrypted = choices.nextInt(4) == 0;
    Compression compression =
        switch (choices.nextInt(4)) {
          case 0 -> Compression.LZ4;
          case 1 -> Compression.ZSTD;
          default -> Compression.NONE;
        };
    IoMode io = choices.nextInt(4) == 0 ? IoMode.DIRECT : IoMode.BUFFERED;
    return new Workload(fsync, keys, shards, zeroFill, encrypted, compression, io);
  }

  CellarOptions options(FileIO io) {
    return CellarOptions.defaults()
        .fsync(fsync)
        .segmentBytes(SEGMENT_BYTES)
        .maxKeyBytes(1024)
        .maxValueBytes(MAX_VALUE_BYTES)
        .shards(shards)
        .compactionGarbageRatio(0.3)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO)
        .zeroFillLog(zeroFill)
        .encryptionKeys(encrypted ? KEYS : null)
        .compression(compression)
        .io(ioMode)
        .readCacheBytes(CellarOptions.MIN_READ_CACHE_BYTES)
        .fileIO(io);
  }
}
