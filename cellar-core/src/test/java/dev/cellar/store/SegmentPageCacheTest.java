package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.log.Segment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In {@code io buffered}, the segments compaction replaced leave the page cache at once, not when a
 * checkpoint lets them be deleted: the kernel's own count of each file's cached pages ({@code
 * fincore}, from util-linux) is zero for them, while the segments written since still have theirs,
 * and every key still reads (from the compacted copies).
 */
class SegmentPageCacheTest {
  @TempDir Path dir;

  /** Bytes of {@code file} in the page cache, by {@code fincore}; -1 if it cannot tell. */
  static long cachedBytes(Path file) throws IOException, InterruptedException {
    Process p;
    try {
      p =
          new ProcessBuilder(
                  "fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", file.toString())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      return -1;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.waitFor() != 0 || !out.matches("\\d+")) {
      return -1;
    }
    return Long.parseLong(out);
  }

  /**
   * Bytes of the segment files of the store in {@code dir} in the page cache, by {@code fincore}.
   */
  static long cachedSegmentBytes(Path dir) throws IOException, InterruptedException {
    long total = 0;
    for (Path f : segmentFiles(dir)) {
      total += Math.max(0, cachedBytes(f));
    }
    return total;
  }

  /** The segment files of the store in {@code dir}, by name. */
  static List<Path> segmentFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return new ArrayList<>(
          files.filter(f -> Segment.idOf(f.getFileName().toString()) >= 0).sorted().toList());
    }
  }

  @Test
  void segmentsCompactionReplacedLeaveThePageCache() throws Exception {
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .segmentBytes(1 << 20)
            .maxKeyBytes(1 << 10)
            .maxValueBytes(64 << 10)
            .shards(4)
            .checkpointInterval(Duration.ZERO) // no checkpoint deletes the replaced segments
            .backgroundCompaction(false);
    try (Cellar db = Cellar.open(dir, options)) {
      // The first versions fill segments that are all garbage once the second are written.
      for (int version = 0; version < 2; version++) {
        for (int i = 0; i < 3000; i++) {
          db.put(CompressionTest.key(i), CompressionTest.document(i, version));
        }
      }
      db.sync();
      List<Path> before = segmentFiles(dir);
      Path active = before.getLast();
      long cachedBefore = 0;
      for (Path f : before) {
        if (!f.equals(active)) {
          cachedBefore += Math.max(0, cachedBytes(f));
        }
      }
      assumeTrue(cachedBytes(active) >= 0, "fincore cannot tell what is cached here");
      // Written through the page cache, the segments are in it before compaction.
      assertTrue(cachedBefore > 1 << 20, "cached before compaction: " + cachedBefore);

      assertTrue(db.compact() > 0);
      List<Path> replaced = ((Store) db).obsoleteFiles();
      assertTrue(replaced.size() > 2, "replaced segments still on disk: " + replaced);
      long cachedReplaced = 0;
      for (Path f : replaced) {
        assertTrue(Files.exists(f), f + " is deleted only by a later checkpoint");
        cachedReplaced += cachedBytes(f);
      }
      // Megabytes before; after, at most a page each (a header read again after the drop, which
      // happened once in CI: a reader may still read a replaced segment, from the file).
      assertTrue(
          cachedReplaced <= 4096L * replaced.size(),
          "bytes of replaced segments still cached: " + cachedReplaced);
      long cachedLive = 0;
      for (Path f : segmentFiles(dir)) {
        if (!replaced.contains(f)) {
          cachedLive += cachedBytes(f);
        }
      }
      assertTrue(cachedLive > 1 << 20, "the live segments stay cached: " + cachedLive);
      for (int i = 0; i < 3000; i++) {
        assertArrayEquals(CompressionTest.document(i, 1), db.get(CompressionTest.key(i)));
      }
    }
  }
}
