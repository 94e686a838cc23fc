package dev.cellar.log;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.io.FileIO;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The segment's map of records the index left, and the scanner stepping over them. */
class DeadRecordMapTest {
  @TempDir Path dir;

  @Test
  void marksAreExactForRecordsAsCloseAsTheyCanBe() throws Exception {
    try (Segment segment =
        Segment.create(
            FileIO.platform(),
            dir.resolve("s.log"),
            1,
            SegmentHeaderDescriptor.KIND_LOG,
            1 << 20,
            0,
            false)) {
      // Records are at least 9 bytes, so these are the densest starts possible.
      for (long offset = 64; offset < 64 + 9 * 1000; offset += 9) {
        assertFalse(segment.markedDead(offset));
        if ((offset / 9) % 3 == 0) {
          segment.markDead(offset);
        }
      }
      for (long offset = 64; offset < 64 + 9 * 1000; offset += 9) {
        assertEquals((offset / 9) % 3 == 0, segment.markedDead(offset), "offset " + offset);
      }
      segment.markDead((1 << 20) - 9);
      assertTrue(segment.markedDead((1 << 20) - 9));
    }
  }

  @Test
  void touchReadsTheWordThatHoldsTheMark() throws Exception {
    try (Segment segment =
        Segment.create(
            FileIO.platform(),
            dir.resolve("s.log"),
            1,
            SegmentHeaderDescriptor.KIND_LOG,
            1 << 20,
            0,
            false)) {
      assertEquals(0, segment.touchDeadMark(4096), "no map yet");
      segment.markDead(4096 + 8 * 5);
      // Granule 517 is bit 5 of word 8, which also holds the granule of offset 4096.
      assertEquals(1L << 5, segment.touchDeadMark(4096));
      assertEquals(0, segment.touchDeadMark(4096 + 512));
    }
  }

  @Test
  void concurrentMarksAreAllKept() throws Exception {
    try (Segment segment =
        Segment.create(
            FileIO.platform(),
            dir.resolve("s.log"),
            1,
            SegmentHeaderDescriptor.KIND_LOG,
            1 << 20,
            0,
            false)) {
      int threads = 4;
      List<Thread> markers = new ArrayList<>();
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        // Neighbouring granules share words: every thread writes into every word.
        markers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (long g = first; g < (1 << 17); g += threads) {
                          segment.markDead(g * 8);
                        }
                      } catch (Throwable e) {
                        failures.add(e);
                      }
                    }));
      }
      for (Thread m : markers) {
        m.join();
      }
      assertTrue(failures.isEmpty(), failures.toString());
      for (long g = 0; g < (1 << 17); g++) {
        assertTrue(segment.markedDead(g * 8), "granule " + g);
      }
    }
  }

  @Test
  void scannerStepsOverMarkedPutsUnverifiedButNotDeletesOrUnmarkedDamage() {
    MemorySegment log = MemorySegment.ofArray(new byte[4096]);
    long[] offsets = new long[4];
    long at = 0;
    for (int i = 0; i < 4; i++) {
      offsets[i] = at;
      int type = i == 2 ? RecordDescriptor.DELETE : RecordDescriptor.PUT;
      MemorySegment value = i == 2 ? null : MemorySegment.ofArray(("value-" + i).getBytes(UTF_8));
      at +=
          RecordDescriptor.write(
              log, at, type, MemorySegment.ofArray(("key-" + i).getBytes(UTF_8)), value, i + 1, 0);
    }
    long end = at;
    // Damage the last byte (value) of record 0, which is marked, and of record 3, which is not.
    flipLastByte(log, offsets[1] - 1);
    flipLastByte(log, end - 1);
    List<Long> visited = new ArrayList<>();
    SegmentScanner.Result result =
        SegmentScanner.scan(
            log,
            0,
            end,
            true,
            true,
            o -> o == offsets[0] || o == offsets[2],
            r -> visited.add(r.offset()));
    // Record 0 is stepped over (its damage is not looked at), the marked delete is still visited.
    assertEquals(List.of(offsets[1], offsets[2]), visited);
    assertEquals(1, result.damage().size(), result.damage().toString());
    assertEquals(offsets[3], result.damage().getFirst().offset());
    // Without the predicate, both damaged records are reported.
    assertEquals(2, SegmentScanner.scan(log, 0, end, true, true, null, r -> {}).damage().size());
  }

  private static void flipLastByte(MemorySegment log, long offset) {
    log.set(ValueLayout.JAVA_BYTE, offset, (byte) (log.get(ValueLayout.JAVA_BYTE, offset) ^ 0x5A));
  }
}
