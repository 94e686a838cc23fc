package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With {@code io direct}, recovery reads the log it replays with O_DIRECT in large requests
 * (counted by a file system that forwards to the platform's), and the index's key comparisons read
 * the segment being replayed from that scan: a replay of the whole log (no checkpoint) leaves the
 * segment files out of the page cache by the kernel's own count ({@code fincore}), where the same
 * replay in {@code io buffered} leaves megabytes in it, and every key reads back with its last
 * value, deletes included.
 */
class DirectRecoveryTest {
  @TempDir Path dir;

  private static final long SMALL = 256 << 10;

  private static CellarOptions options(IoMode io) {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(256 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(64 << 10)
        .shards(4)
        .checkpointInterval(Duration.ZERO)
        .backgroundCompaction(false)
        .io(io)
        .readCacheBytes(1 << 20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "encrypted"})
  void replayReadsTheLogPastThePageCache(String kind) throws Exception {
    CellarOptions options = options(IoMode.DIRECT);
    if (kind.equals("encrypted")) {
      byte[] key = new byte[32];
      new SplittableRandom(3).nextBytes(key);
      options = options.encryptionKeys(EncryptionKeys.of(key));
    }
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int version = 0; version < 3; version++) {
        for (int i = 0; i < 2000; i++) {
          if ((i + version) % 7 == 0) {
            db.delete(CompressionTest.key(i));
            model.remove(i);
          } else {
            model.put(i, CompressionTest.document(i, version));
            db.put(CompressionTest.key(i), model.get(i));
          }
        }
      }
    }
    long logBytes = 0;
    for (Path f : SegmentPageCacheTest.segmentFiles(dir)) {
      logBytes += Files.size(f);
    }
    AtomicLong largeReads = new AtomicLong();
    replayWithColdPageCache(
        IoMode.DIRECT, options.fileIO(DirectIoTest.countingLargeReads(largeReads)), model);
    // The replay read the log in large O_DIRECT requests (the read cache reads 4 KiB blocks).
    assertTrue(
        largeReads.get() >= logBytes / 2,
        "bytes read in large O_DIRECT requests: " + largeReads.get() + " of " + logBytes);
    assertTrue(
        SegmentPageCacheTest.cachedSegmentBytes(dir) < SMALL,
        "segment bytes in the page cache after a direct replay: "
            + SegmentPageCacheTest.cachedSegmentBytes(dir));
    // The count can fail: the same replay through the mappings leaves the log in the page cache.
    replayWithColdPageCache(IoMode.BUFFERED, options.fileIO(FileIO.platform()), model);
    long buffered = SegmentPageCacheTest.cachedSegmentBytes(dir);
    assertTrue(buffered > 4 * SMALL, "segment bytes in the page cache after a buffered replay");
  }

  /**
   * Removes the checkpoints, drops the segment files from the page cache, opens the store with
   * {@code io} (so it replays the whole log), checks every key and closes it without a checkpoint
   * being read by anyone.
   */
  private void replayWithColdPageCache(IoMode io, CellarOptions options, Map<Integer, byte[]> model)
      throws IOException, InterruptedException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p :
          files.filter(f -> f.getFileName().toString().startsWith("checkpoint-")).toList()) {
        Files.delete(p);
      }
    }
    List<Path> segments = SegmentPageCacheTest.segmentFiles(dir);
    assertTrue(segments.size() > 5, "segments: " + segments);
    for (Path f : segments) {
      dropFromPageCache(f);
    }
    long cold = SegmentPageCacheTest.cachedSegmentBytes(dir);
    assumeTrue(SegmentPageCacheTest.cachedBytes(segments.getFirst()) >= 0, "no fincore here");
    assumeTrue(cold < SMALL, "the page cache kept the segments: " + cold);
    try (Cellar db = Cellar.open(dir, options.io(io))) {
      assertTrue(
          db.recoveryReport().replayedRecords() >= 5000,
          "replayed " + db.recoveryReport().replayedRecords());
      CompressionTest.check(db, model);
      assertEquals(model.size(), db.size());
    }
  }

  /** {@code POSIX_FADV_DONTNEED} on the file, through coreutils' dd. */
  private static void dropFromPageCache(Path file) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("dd", "if=" + file, "iflag=nocache", "count=0", "status=none")
            .redirectErrorStream(true)
            .start();
    p.getInputStream().readAllBytes();
    assumeTrue(p.waitFor() == 0, "dd cannot drop a file from the page cache here");
  }
}
