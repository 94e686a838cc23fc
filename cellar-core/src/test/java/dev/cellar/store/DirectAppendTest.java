package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.log.Segment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With {@code io direct} and {@code fsync always}, the log is appended with O_DIRECT and
 * compaction's outputs are written the same way: by the kernel's own count ({@code fincore}), the
 * store's segment files take next to nothing of the page cache while it writes, compacts and
 * reopens (the same writes under {@code fsync no}, whose tail stays in the page cache, take
 * megabytes), and every key reads back, before and after compaction, after reopening (which resumes
 * the last segment in memory again), and through a buffered open of the same files.
 */
class DirectAppendTest {
  @TempDir Path dir;

  /** What the segment files may hold in the page cache: their headers read back at reopen, say. */
  private static final long SMALL = 256 << 10;

  private static CellarOptions options(Fsync fsync) {
    return CellarOptions.defaults()
        .fsync(fsync)
        .segmentBytes(1 << 20)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(64 << 10)
        .shards(4)
        .checkpointInterval(Duration.ZERO)
        .backgroundCompaction(false)
        .io(IoMode.DIRECT)
        .readCacheBytes(1 << 20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "encrypted", "compressed", "zero-filled"})
  void alwaysAppendsPastThePageCacheAndReadsBackEverything(String kind) throws Exception {
    CellarOptions options = options(Fsync.ALWAYS);
    if (kind.equals("encrypted")) {
      byte[] key = new byte[32];
      new SplittableRandom(9).nextBytes(key);
      options = options.encryptionKeys(EncryptionKeys.of(key));
    }
    if (kind.equals("compressed")) {
      options = options.compression(Compression.ZSTD);
    }
    if (kind.equals("zero-filled")) {
      // Space reserved by writing zeros, which for such a segment are written out with O_DIRECT.
      options = options.zeroFillLog(true);
    }
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      write(db, model, 0, 3000);
      write(db, model, 1, 3000);
      assumeTrue(SegmentPageCacheTest.cachedBytes(segmentFiles().getFirst()) >= 0, "no fincore");
      assertTrue(segmentFiles().size() > 4, "segments written: " + segmentFiles());
      assertDirect(db);
      long cached = cachedBytes();
      assertTrue(cached < SMALL, "segment bytes in the page cache after appends: " + cached);
      CompressionTest.check(db, model);

      List<Path> before = segmentFiles();
      CompressionTest.compactFully(db);
      List<Path> outputs = new ArrayList<>(segmentFiles());
      outputs.removeAll(before);
      assertTrue(!outputs.isEmpty(), "compaction wrote no segment");
      CompressionTest.check(db, model);
      assertTrue(
          cachedBytes() < SMALL,
          "segment bytes in the page cache after compaction: " + cachedBytes());
      db.checkpoint();
    }
    try (Cellar db = Cellar.open(dir, options)) {
      CompressionTest.check(db, model);
      write(db, model, 2, 1500); // the last segment is resumed in the appender's memory first
      assertDirect(db);
      CompressionTest.check(db, model);
      assertTrue(
          cachedBytes() < SMALL,
          "segment bytes in the page cache after reopening: " + cachedBytes());
    }
    try (Cellar db = Cellar.open(dir, options.io(IoMode.BUFFERED).fsync(Fsync.NO))) {
      CompressionTest.check(db, model);
    }
  }

  /** The contrast that shows the count above can fail: under {@code no} the tail is cached. */
  @Test
  void withoutAlwaysTheTailStaysInThePageCache() throws Exception {
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options(Fsync.NO))) {
      write(db, model, 0, 3000);
      db.sync();
      assumeTrue(SegmentPageCacheTest.cachedBytes(segmentFiles().getFirst()) >= 0, "no fincore");
      long cached = cachedBytes();
      assertTrue(cached > 4 * SMALL, "segment bytes in the page cache: " + cached);
      for (Segment s : ((Store) db).segmentsForTest()) {
        assertTrue(!s.appendsDirect(), s + " appends with O_DIRECT under fsync no");
      }
      CompressionTest.check(db, model);
    }
  }

  private static void write(Cellar db, Map<Integer, byte[]> model, int version, int count) {
    for (int i = 0; i < count; i++) {
      if ((i + version) % 11 == 0) {
        db.delete(CompressionTest.key(i));
        model.remove(i);
      } else {
        model.put(i, CompressionTest.document(i, version));
        db.put(CompressionTest.key(i), model.get(i));
      }
    }
  }

  /** The active segment appends with O_DIRECT (the file system allowed it). */
  private static void assertDirect(Cellar db) {
    List<Segment> all = ((Store) db).segmentsForTest();
    Segment active = all.getLast();
    assertTrue(active.appendsDirect(), active + " does not append with O_DIRECT");
  }

  private long cachedBytes() throws IOException, InterruptedException {
    return SegmentPageCacheTest.cachedSegmentBytes(dir);
  }

  private List<Path> segmentFiles() throws IOException {
    return SegmentPageCacheTest.segmentFiles(dir);
  }
}
