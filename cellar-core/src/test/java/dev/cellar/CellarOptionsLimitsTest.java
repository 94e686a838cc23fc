package dev.cellar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cellar.log.RecordDescriptor;
import org.junit.jupiter.api.Test;

/** The limits the API names are the ones the engine enforces. */
class CellarOptionsLimitsTest {

  @Test
  void recordOverheadIsTheLongestFraming() {
    // Lengths are ints, seqs below 2^63, and the expiry is 8 bytes: the longest record header.
    long longest =
        RecordDescriptor.length(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, true)
            - 2L * Integer.MAX_VALUE;
    assertEquals(longest, CellarOptions.RECORD_OVERHEAD_BYTES);
    assertEquals(32, CellarOptions.RECORD_OVERHEAD_BYTES);
    assertEquals(96, CellarOptions.RECORD_ALLOWANCE_BYTES);
  }

  @Test
  void largestValueBytesIsTheBoundValidateEnforces() {
    int segment = CellarOptions.MIN_SEGMENT_BYTES;
    int key = 1024;
    int largest = (int) CellarOptions.largestValueBytes(segment, key);
    CellarOptions fits =
        CellarOptions.defaults().segmentBytes(segment).maxKeyBytes(key).maxValueBytes(largest);
    fits.validate();
    assertThrows(IllegalArgumentException.class, () -> fits.maxValueBytes(largest + 1).validate());
  }

  @Test
  void largestValueBytesDoesNotOverflowForAHugeKey() {
    CellarOptions huge =
        CellarOptions.defaults()
            .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
            .maxKeyBytes(Integer.MAX_VALUE)
            .maxValueBytes(0);
    assertThrows(IllegalArgumentException.class, huge::validate);
  }

  @Test
  void maxShardsIsTheBoundValidateEnforces() {
    CellarOptions.defaults().shards(CellarOptions.MAX_SHARDS).validate();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CellarOptions.defaults().shards(CellarOptions.MAX_SHARDS * 2).validate());
    assertEquals(
        "invalid Cellar option: shards 8192 is not a power of two in [1, 4096]", e.getMessage());
  }
}
