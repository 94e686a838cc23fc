package dev.cellar.bench.atrest;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.Fsync;
import dev.cellar.bench.workload.JsonDocuments;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.StoreDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * Builds one store of the compressed-store part and measures what it takes on disk: the same
 * documents ({@link JsonDocuments}, one seed) under {@code doc:<n>}, put in batches of {@link
 * EngineStore#PUT_BATCH}; the store closed and opened again, so that the segment the load was
 * writing is sealed and a new, empty one is active; then {@code compact()} until a pass reclaims
 * nothing (each pass compresses a few segments' worth; a store that does not compress and holds no
 * garbage has nothing to do), and a checkpoint, which deletes the segments compaction replaced. The
 * disk use is the bytes of the segment files then (the active segment is a header); the checkpoint
 * is counted apart.
 *
 * <p>Documents are generated as they are put, never all held: the part's store is meant to be
 * larger than a memory limit, and the parent JVM need not hold it either.
 */
final class CompressedStores {
  private CompressedStores() {}

  /** What one store holds on disk once built, and what building it took. */
  record Built(
      Compression codec,
      Path directory,
      long rawBytes,
      long segmentBytes,
      int segments,
      int compressedSegments,
      long checkpointBytes,
      int compactionPasses,
      double loadSeconds,
      double compactSeconds) {}

  /**
   * The options every side opens its store with: only the codec differs. No background work
   * (compaction, checkpoints), so nothing runs but the reads being measured; fsync no, as the store
   * is written once and never crashed.
   */
  static CellarOptions options(Compression codec, int documents, int segmentBytes) {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO)
        .segmentBytes(segmentBytes)
        .maxValueBytes(64 << 10)
        .expectedKeys(documents)
        .compression(codec);
  }

  /**
   * A sixteenth of the documents' bytes, in whole 64 KiB, from 1 to 16 MiB: a store of a few
   * hundred MiB is dozens of sealed segments to compress, and a small one (the test's) several.
   */
  static int segmentBytes(long rawBytes) {
    long sixteenth = (rawBytes / 16) & ~0xFFFFL;
    return (int) Math.clamp(sixteenth, 1 << 20, 16 << 20);
  }

  static Built build(Path directory, Compression codec, int documents, long rawBytes, long seed)
      throws IOException {
    CellarOptions options = options(codec, documents, segmentBytes(rawBytes));
    long raw = 0;
    long start = System.nanoTime();
    try (Cellar db = Cellar.open(directory, options)) {
      raw = load(db, documents, seed);
    }
    double loadSeconds = (System.nanoTime() - start) / 1e9;
    start = System.nanoTime();
    int passes = 0;
    try (Cellar db = Cellar.open(directory, options)) {
      while (db.compact() > 0) {
        passes++;
      }
      db.checkpoint();
    }
    double compactSeconds = (System.nanoTime() - start) / 1e9;
    StoreDirectory files = StoreDirectory.list(directory);
    long segmentBytes = 0;
    int compressed = 0;
    for (Path segment : files.segments()) {
      segmentBytes += Files.size(segment);
      try (SegmentFile s = SegmentFile.open(segment)) {
        compressed += s.compressed() ? 1 : 0;
      }
    }
    long checkpointBytes = 0;
    for (Path checkpoint : files.checkpoints()) {
      checkpointBytes += Files.size(checkpoint);
    }
    return new Built(
        codec,
        directory,
        raw,
        segmentBytes,
        files.segments().size(),
        compressed,
        checkpointBytes,
        passes,
        loadSeconds,
        compactSeconds);
  }

  /** Puts the documents; returns their bytes. */
  private static long load(Cellar db, int documents, long seed) {
    JsonDocuments docs = new JsonDocuments(seed);
    byte[][] keys = new byte[EngineStore.PUT_BATCH][];
    byte[][] values = new byte[EngineStore.PUT_BATCH][];
    int filled = 0;
    long raw = 0;
    for (int n = 0; n < documents; n++) {
      keys[filled] = EngineStore.key(n);
      values[filled] = docs.next();
      raw += values[filled].length;
      if (++filled == keys.length) {
        db.putAll(keys, values, Cellar.NO_EXPIRY);
        filled = 0;
      }
    }
    if (filled > 0) {
      db.putAll(Arrays.copyOf(keys, filled), Arrays.copyOf(values, filled), Cellar.NO_EXPIRY);
    }
    return raw;
  }
}
