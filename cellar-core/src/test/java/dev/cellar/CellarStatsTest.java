package dev.cellar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A key's footprint, as a server reports it for {@code MEMORY USAGE}. */
class CellarStatsTest {

  private static CellarStats stats(long keys, long indexBytes, long writes) {
    return new CellarStats(keys, indexBytes, 0, 0, 1, writes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void recordPlusTheIndexBytesPerKey() {
    // Record: CRC 4, type 1, varints 1 (key length 5) + 2 (value length 5000) + 1 (seq ~100),
    // key 5, value 5000 = 5014; index: 16384 bytes over 1024 keys = 16.
    assertEquals(5014 + 16, stats(1024, 16384, 100).keyFootprint(5, 5000, false));
  }

  @Test
  void anExpiryAddsItsEightBytes() {
    assertEquals(
        stats(1024, 16384, 100).keyFootprint(5, 5000, false) + 8,
        stats(1024, 16384, 100).keyFootprint(5, 5000, true));
  }

  @Test
  void aMostlyEmptyIndexChargesASlotAtTheLowestGrownLoad() {
    // Framing 4 + 1 + three 1-byte varints, key and value 1 byte each; one key in a preallocated
    // 1024-slot table is charged 8 bytes over 3/8 = 21, not 8192.
    assertEquals(4 + 1 + 3 + 1 + 1 + 21, stats(1, 8192, 1).keyFootprint(1, 1, false));
  }

  @Test
  void theSeqVarintGrowsWithTheWritesSoFar() {
    // Seq 100 takes 1 varint byte, seq 2^21 takes 4.
    assertEquals(
        stats(1024, 16384, 100).keyFootprint(5, 5, false) + 3,
        stats(1024, 16384, 1L << 21).keyFootprint(5, 5, false));
  }
}
