package dev.cellar.store;

import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_END;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cellar.CellarException;
import dev.cellar.ScanPage;
import org.junit.jupiter.api.Test;

class ScanCursorDescriptorTest {
  /** The worked example of docs/format/index.md#scan-cursor. */
  @Test
  void matchesTheDocumentedExample() {
    assertEquals(45, ScanCursorDescriptor.shard(191450112L));
    assertEquals(0x294c00, ScanCursorDescriptor.bound(191450112L));
    assertEquals(191450828L, ScanCursorDescriptor.encode(45, 0x294ecc, 256));
  }

  @Test
  void aFinishedShardIsTheNextShardAndTheLastOneIsTheEnd() {
    assertEquals(ScanPage.START, ScanCursorDescriptor.encode(0, 0, 64));
    assertEquals(1L << 22, ScanCursorDescriptor.encode(0, FINGERPRINT_END, 64));
    assertEquals(ScanPage.START, ScanCursorDescriptor.encode(63, FINGERPRINT_END, 64));
    assertEquals(
        (63L << 22) | (FINGERPRINT_END - 1),
        ScanCursorDescriptor.encode(63, FINGERPRINT_END - 1, 64));
    assertEquals(ScanPage.START, ScanCursorDescriptor.encode(4095, FINGERPRINT_END, 4096));
  }

  @Test
  void numbersOutsideTheLayoutAreRefused() {
    ScanCursorDescriptor.validate((4095L << 22) | (FINGERPRINT_END - 1), 4096);
    ScanCursorDescriptor.validate((63L << 22) | 5, 64);
    for (long bad : new long[] {64L << 22, 1L << 34, -1, Long.MIN_VALUE}) {
      CellarException e =
          assertThrows(CellarException.class, () -> ScanCursorDescriptor.validate(bad, 64));
      assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
    }
  }
}
