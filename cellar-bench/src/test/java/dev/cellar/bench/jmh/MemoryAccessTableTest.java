package dev.cellar.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.jmh.MemoryAccessTable.Result;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryAccessTableTest {

  @Test
  void eachCellIsARatioToTheArrayOfTheSameLoopAndSize() {
    List<Result> results =
        List.of(
            // Listed out of order: the table orders sizes and rows itself. Median ns per pass.
            new Result("sumLongs_segment", "shared", 16384, 2_000),
            new Result("sumLongs_array", "", 268435456, 100_000_000),
            new Result("sumLongs_array", "", 16384, 500),
            new Result("fillLongs_array", "", 16384, 250_000),
            new Result("fillLongs_segment", "shared", 16384, 1_000_000),
            new Result("sumLongs_segment", "shared", 268435456, 80_000_000));

    String table = MemoryAccessTable.markdown(results);

    String[] lines = table.split("\n");
    assertEquals(
        "**16 KiB**: ratio to the array, then ops/s (whole passes a second, from the median pass)",
        lines[0]);
    assertEquals(
        "| `long[]` / `byte[]` (baseline) | **1.00x** (2.00M) | **1.00x** (4.0k) | — | — |",
        lines[4]);
    assertEquals(
        "| segment, `Arena.ofShared()`, `JAVA_LONG` | **0.25x** (500.0k) | **0.25x** (1.0k) | — | — |",
        lines[5]);
    assertTrue(table.contains("**256 MiB**"), table);
    assertTrue(
        table.contains("| segment, `Arena.ofShared()`, `JAVA_LONG` | **1.25x** (12.5) |"), table);
    assertTrue(table.indexOf("**16 KiB**") < table.indexOf("**256 MiB**"), table);
  }

  @Test
  void aCellWithoutItsArrayShowsTheThroughputAlone() {
    String table =
        MemoryAccessTable.markdown(
            List.of(new Result("randomLongs_segmentUnaligned", "mapped", 524288, 8_100)));
    assertTrue(
        table.contains(
            "| segment, mapped file (shared arena), `JAVA_LONG_UNALIGNED` | — | — | 123.5k | — |"),
        table);
  }

  @Test
  void slowRatesKeepTwoDigits() {
    // A random pass over 256 MiB takes seconds: 0.36 and 0.44 passes a second must differ.
    assertEquals("0.36", MemoryAccessTable.rate(1e9 / 2_777_777_778.0));
    assertEquals("12.5", MemoryAccessTable.rate(12.5));
    assertEquals("2.00M", MemoryAccessTable.rate(2e6));
  }

  @Test
  void refusesAMethodNotNamedLoopUnderscoreHolder() {
    assertThrows(
        IllegalArgumentException.class,
        () -> MemoryAccessTable.markdown(List.of(new Result("sumLongs", "", 8, 1))));
  }

  @Test
  void sizesMustBeWholeLongsThatAByteBufferCanIndex() {
    assertEquals(16384, MemoryAccessBenchmark.checkedSize("16384"));
    for (String bad : List.of("0", "-8", "12", "2147483648")) {
      assertThrows(
          IllegalArgumentException.class, () -> MemoryAccessBenchmark.checkedSize(bad), bad);
    }
  }

  @Test
  void thePermutationHoldsEveryIndexOnceAndIsTheSameInEveryFork() {
    int[] order = MemoryAccessBenchmark.permutation(1000);
    int[] sorted = order.clone();
    java.util.Arrays.sort(sorted);
    int[] identity = java.util.stream.IntStream.range(0, 1000).toArray();
    assertArrayEquals(identity, sorted);
    assertArrayEquals(order, MemoryAccessBenchmark.permutation(1000));
    assertTrue(!java.util.Arrays.equals(identity, order), "not shuffled");
  }
}
