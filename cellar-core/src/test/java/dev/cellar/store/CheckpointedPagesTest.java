package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.io.FileIO;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckpointedPages} on real segment files, by the kernel's count of their cached pages
 * ({@code fincore}): after a checkpoint with memory tight, the segments sealed since the previous
 * one leave the page cache; with memory not tight they stay, and are not dropped by a later
 * checkpoint either (only what was sealed since the previous checkpoint is the writer's); switched
 * off (the default, and always in {@code io direct}) nothing is touched.
 */
class CheckpointedPagesTest {
  @TempDir Path dir;

  private static final long BYTES = 512 << 10;

  private final List<Segment> opened = new ArrayList<>();

  private Segment sealedSegment(long id) throws Exception {
    Segment s =
        Segment.create(
            FileIO.platform(),
            dir.resolve(Segment.fileName(id)),
            id,
            SegmentHeaderDescriptor.KIND_LOG,
            1 << 20,
            0,
            false);
    opened.add(s);
    s.reserve(s.dataStart(), BYTES);
    MemorySegment m = s.memory();
    for (long at = s.dataStart(); at < BYTES; at += 8) {
      m.set(ValueLayout.JAVA_LONG_UNALIGNED, at, at * 31 + id);
    }
    s.end(BYTES);
    s.seal();
    return s;
  }

  private long cached(Segment s) throws Exception {
    return SegmentPageCacheTest.cachedBytes(s.path());
  }

  @Test
  void tightMemoryDropsWhatWasSealedSinceTheLastCheckpoint() throws Exception {
    try {
      AtomicBoolean tight = new AtomicBoolean(false);
      CheckpointedPages pages = new CheckpointedPages(true, tight::get);
      Segment first = sealedSegment(1);
      assumeTrue(cached(first) >= 0, "fincore cannot tell what is cached here");
      assertTrue(cached(first) > BYTES / 2, "written pages cached: " + cached(first));

      pages.afterCheckpoint(List.of(first)); // not tight: kept
      assertTrue(cached(first) > BYTES / 2, "kept while memory is not tight: " + cached(first));
      tight.set(true);
      pages.afterCheckpoint(List.of(first)); // sealed before the previous checkpoint: kept
      assertTrue(cached(first) > BYTES / 2, "an older segment is left alone: " + cached(first));

      Segment second = sealedSegment(2);
      pages.afterCheckpoint(List.of(first, second));
      assertEquals(0, cached(second), "dropped after the checkpoint that covers it");
      assertTrue(cached(first) > BYTES / 2, "the older one still cached: " + cached(first));
      assertEquals(1, pages.dropped());
      // The bytes are the file's: a read brings them back.
      assertEquals(
          (BYTES - 8) * 31 + 2, second.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, BYTES - 8));

      Segment third = sealedSegment(3);
      new CheckpointedPages(false, () -> true).afterCheckpoint(List.of(third)); // off
      assertTrue(cached(third) > BYTES / 2, "switched off, it leaves it: " + cached(third));
    } finally {
      opened.forEach(Segment::close);
    }
  }
}
