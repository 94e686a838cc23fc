package dev.cellar.log;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a log segment's reader treats atomic units (docs/format/log.md, "Atomic units"): a unit is
 * visited whole or not at all, whatever a crash cut or a bad sector damaged; records after a
 * damaged unit are still found; compacted segments, which hold copies of committed records, take
 * each record on its own.
 */
class AtomicUnitScanTest {
  private static final int UNIT = 5;

  /** A standalone record (seq 1), a unit of {@link #UNIT} records (seqs 2-6), another (seq 7). */
  private record Log(byte[] bytes, int unitStart, int unitEnd, int end, int[] starts) {}

  private static Log write() {
    byte[] bytes = new byte[4096];
    MemorySegment m = MemorySegment.ofArray(bytes);
    int[] starts = new int[UNIT + 2];
    int at = 0;
    long seq = 1;
    for (int i = 0; i < UNIT + 2; i++) {
      starts[i] = at;
      int bits = i == 0 || i == UNIT + 1 ? 0 : RecordDescriptor.unitBits(i - 1, UNIT);
      boolean delete = i == 3;
      at +=
          RecordDescriptor.write(
              m,
              at,
              (delete ? RecordDescriptor.DELETE : RecordDescriptor.PUT) | bits,
              MemorySegment.ofArray(("key" + i).getBytes(UTF_8)),
              delete ? null : MemorySegment.ofArray(("value of record " + i).getBytes(UTF_8)),
              seq++,
              0);
    }
    return new Log(bytes, starts[1], starts[UNIT + 1], at, starts);
  }

  private static List<Long> seqs(byte[] bytes, int limit, boolean log, boolean sealed) {
    List<Long> seen = new ArrayList<>();
    SegmentScanner.scan(
        MemorySegment.ofArray(bytes), 0, limit, sealed, log, v -> seen.add(v.seq()));
    return seen;
  }

  @Test
  void aWholeUnitIsVisitedInOrder() {
    Log log = write();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), seqs(log.bytes, log.end, true, true));
  }

  @Test
  void aUnitCutAnywhereByACrashIsDroppedWhole() {
    Log log = write();
    for (int cut = log.unitStart; cut < log.unitEnd; cut++) {
      byte[] torn = log.bytes.clone();
      Arrays.fill(torn, cut, torn.length, (byte) 0);
      SegmentScanner.Result result =
          SegmentScanner.scan(MemorySegment.ofArray(torn), 0, torn.length, false, true, v -> {});
      assertEquals(List.of(1L), seqs(torn, torn.length, true, false), "cut at " + cut);
      assertEquals(log.unitStart, result.validEnd(), "cut at " + cut);
      assertTrue(result.holes().isEmpty(), "cut at " + cut + ": " + result.damage());
    }
  }

  @Test
  void aDamagedRecordDropsItsUnitAndTheScanGoesOn() {
    Log log = write();
    for (int r = 1; r <= UNIT; r++) {
      byte[] damaged = log.bytes.clone();
      damaged[log.starts[r] + 9] ^= 0x40; // inside the key: the CRC no longer matches
      SegmentScanner.Result result =
          SegmentScanner.scan(
              MemorySegment.ofArray(damaged), 0, damaged.length, false, true, v -> {});
      assertEquals(List.of(1L, 7L), seqs(damaged, damaged.length, true, false), "record " + r);
      assertEquals(1, result.holes().size(), "record " + r + ": " + result.damage());
      SegmentScanner.Damage hole = result.holes().getFirst();
      assertEquals(log.unitStart, hole.offset(), "record " + r);
      assertEquals(log.unitEnd - log.unitStart, hole.length(), "record " + r);
    }
  }

  @Test
  void aUnitNamesWhyItWasDropped() {
    Log log = write();
    byte[] damaged = log.bytes.clone();
    damaged[log.starts[4] + 9] ^= 1;
    SegmentScanner.Result result =
        SegmentScanner.scan(
            MemorySegment.ofArray(damaged), 0, damaged.length, false, true, v -> {});
    assertTrue(
        result.damage().getFirst().reason().contains("atomic unit cut short"),
        result.damage().toString());
    byte[] headless = log.bytes.clone();
    headless[log.starts[1] + 9] ^= 1;
    result =
        SegmentScanner.scan(
            MemorySegment.ofArray(headless), 0, headless.length, false, true, v -> {});
    assertEquals(List.of(1L, 7L), seqs(headless, headless.length, true, false));
    assertEquals(log.unitStart, result.damage().getFirst().offset());
  }

  @Test
  void aUnitAtTheEndOfASealedSegmentMustBeWhole() {
    Log log = write();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), seqs(log.bytes, log.unitEnd, true, true));
    assertEquals(List.of(1L), seqs(log.bytes, log.unitEnd - 1, true, true));
  }

  @Test
  void compactedSegmentsTakeEachRecordOnItsOwn() {
    // Compaction copies records of committed units with their bits; in a compacted segment (read
    // without the increasing-seq rule) each stands alone.
    Log log = write();
    byte[] torn = log.bytes.clone();
    Arrays.fill(torn, log.starts[4], torn.length, (byte) 0);
    assertEquals(List.of(1L, 2L, 3L, 4L), seqs(torn, torn.length, false, false));
  }
}
