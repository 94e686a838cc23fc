package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for encrypted records: arbitrary bytes, scanned as the records region of an encrypted
 * segment (from offset {@link #BASE}, under a fixed file key), must never throw, and every record
 * the scanner accepts must be one the test itself encrypted at exactly that offset, with the same
 * header, key and value: a changed, moved or made-up record fails its tag and is never handed on.
 * The seeds are those records back to back; the fuzzer mutates them.
 */
class EncryptedRecordFuzzTest {
  private static final long BASE = SegmentHeaderDescriptor.ENCRYPTED_DATA_START;
  private static final SegmentCipher CIPHER =
      SegmentCipher.of(3, new byte[CipherBlockDescriptor.SALT_BYTES], new byte[32], "fuzz");

  /** What the test encrypted, by offset: type, seq, expiry, key and value. */
  private record Written(int type, long seq, long expireAt, byte[] key, byte[] value) {}

  private static final Map<Long, Written> WRITTEN = new HashMap<>();
  private static final byte[] SEED = seed();

  private static byte[] seed() {
    byte[] region = new byte[(int) BASE + 1024];
    MemorySegment m = MemorySegment.ofArray(region);
    long at = BASE;
    at += write(m, at, RecordDescriptor.PUT, "key1", "value1", 1, 0);
    at += write(m, at, RecordDescriptor.PUT, "k", "", 2, 4_102_444_800_000L);
    at += write(m, at, RecordDescriptor.DELETE, "key1", null, 3, 0);
    at += write(m, at, RecordDescriptor.PUT, "key2", "v".repeat(200), 300, 0);
    return Arrays.copyOfRange(region, (int) BASE, (int) at);
  }

  private static int write(
      MemorySegment m, long at, int type, String key, String value, long seq, long expireAt) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] v = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
    WRITTEN.put(at, new Written(type, seq, expireAt, k, v));
    return RecordDescriptor.write(
        m,
        at,
        type,
        MemorySegment.ofArray(k),
        value == null ? null : MemorySegment.ofArray(v),
        seq,
        expireAt,
        CIPHER);
  }

  static Stream<byte[]> records() {
    return Stream.of(SEED, Arrays.copyOf(SEED, SEED.length + 20));
  }

  @MethodSource("records")
  @FuzzTest(maxDuration = "15s")
  void acceptsOnlyWhatWasEncryptedThere(byte[] bytes) {
    byte[] region = new byte[(int) BASE + bytes.length];
    System.arraycopy(bytes, 0, region, (int) BASE, bytes.length);
    MemorySegment memory = MemorySegment.ofArray(region);
    for (boolean sealed : new boolean[] {true, false}) {
      SegmentScanner.scan(
          memory,
          CIPHER,
          BASE,
          region.length,
          sealed,
          false,
          null,
          -1,
          view -> {
            Written w = WRITTEN.get(view.offset());
            assertNotNull(w, "a record accepted at " + view.offset() + " that was never written");
            assertEquals(w.type(), view.type());
            assertEquals(w.seq(), view.seq());
            assertEquals(w.expireAt(), view.expireAt());
            assertArrayEquals(w.key(), view.key().toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(w.value(), view.value().toArray(ValueLayout.JAVA_BYTE));
          });
    }
  }

  @org.junit.jupiter.api.Test
  void theSeedIsReadBackWhole() {
    int[] seen = {0};
    SegmentScanner.scan(
        MemorySegment.ofArray(concat()),
        CIPHER,
        BASE,
        BASE + SEED.length,
        true,
        true,
        null,
        -1,
        view -> seen[0]++);
    assertEquals(WRITTEN.size(), seen[0]);
    assertTrue(WRITTEN.size() >= 4);
  }

  private static byte[] concat() {
    byte[] region = new byte[(int) BASE + SEED.length];
    System.arraycopy(SEED, 0, region, (int) BASE, SEED.length);
    return region;
  }
}
