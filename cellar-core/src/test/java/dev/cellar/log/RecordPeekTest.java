package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordPeek} answers as a {@link RecordView} does wherever it answers at all: on records of
 * every type and size, cut short by the limit, and with bytes of their headers corrupted.
 */
class RecordPeekTest {
  private static final int[] TYPES = {
    RecordDescriptor.PUT,
    RecordDescriptor.DELETE,
    RecordDescriptor.HEADER,
    RecordDescriptor.ELEMENT_PUT,
    RecordDescriptor.ELEMENT_DELETE
  };

  @Test
  void agreesWithTheViewOnRecordsAndOnCorruptHeaders() {
    Random random = new Random(23);
    int decided = 0;
    int undecided = 0;
    int invalid = 0;
    int matched = 0;
    for (int i = 0; i < 40_000; i++) {
      int type = TYPES[random.nextInt(TYPES.length)];
      boolean delete = RecordDescriptor.isDelete(type);
      int keyLength = 1 + (random.nextInt(8) == 0 ? random.nextInt(40_000) : random.nextInt(40));
      int valueLength =
          delete ? 0 : random.nextInt(8) == 0 ? random.nextInt(70_000) : random.nextInt(200);
      long seq = random.nextInt(3) == 0 ? random.nextLong(1L << 40) : random.nextInt(1 << 14);
      long expireAt = !delete && random.nextBoolean() ? 1 + random.nextLong(1L << 45) : 0;
      byte[] key = new byte[keyLength];
      random.nextBytes(key);
      byte[] value = new byte[valueLength];
      random.nextBytes(value);
      long length = RecordDescriptor.length(keyLength, valueLength, seq, expireAt != 0);
      int at = random.nextInt(5);
      MemorySegment log = MemorySegment.ofArray(new byte[at + (int) length + 16]);
      RecordDescriptor.write(
          log,
          at,
          type,
          MemorySegment.ofArray(key),
          delete ? null : MemorySegment.ofArray(value),
          seq,
          expireAt);
      int corruptions = random.nextInt(3) == 0 ? 1 + random.nextInt(3) : 0;
      for (int c = 0; c < corruptions; c++) {
        // The type byte, the varints and the expiry: what the header decoders read.
        long where = at + RecordDescriptor.TYPE_OFFSET + random.nextInt(16);
        log.set(ValueLayout.JAVA_BYTE, where, (byte) random.nextInt(256));
      }
      long limit =
          switch (random.nextInt(4)) {
            case 0 -> at + random.nextLong(length + 1); // cut short
            case 1 -> log.byteSize();
            default -> at + length;
          };

      RecordView view = new RecordView();
      boolean parsed = view.parse(log, at, limit);
      long header = RecordPeek.header(log, at, limit);
      if (header == RecordPeek.UNDECIDED) {
        undecided++;
      } else if (header == RecordPeek.INVALID) {
        invalid++;
        assertFalse(parsed, "case " + i + ": the view parsed what the peek refused");
      } else {
        decided++;
        assertTrue(parsed, "case " + i + ": the peek read what the view refused");
        assertEquals(view.length(), RecordPeek.length(header), "case " + i);
        assertEquals(view.isDelete(), RecordPeek.isDelete(header), "case " + i);
        assertEquals(view.expireAt(), RecordPeek.expireAt(log, at, header), "case " + i);
      }

      MemorySegment probe = MemorySegment.ofArray(new byte[keyLength + 2]);
      MemorySegment.copy(MemorySegment.ofArray(key), 0, probe, 1, keyLength);
      if (random.nextInt(4) == 0) {
        probe.set(ValueLayout.JAVA_BYTE, 1 + random.nextInt(keyLength), (byte) random.nextInt(256));
      }
      long probeLength = random.nextInt(10) == 0 ? keyLength - 1 : keyLength;
      int match = RecordPeek.keyMatches(log, at, limit, probe, 1, probeLength);
      if (match != RecordPeek.UNDECIDED) {
        boolean viewMatch = parsed && view.keyEquals(probe, 1, probeLength);
        assertEquals(viewMatch, match == 1, "case " + i);
        matched += match;
      }
    }
    // The peek decides the common records: a test that only ever saw UNDECIDED would prove nothing.
    assertTrue(decided > 10_000, "decided " + decided);
    assertTrue(invalid > 1_000, "invalid " + invalid);
    assertTrue(undecided > 1_000, "undecided " + undecided);
    assertTrue(matched > 5_000, "matched " + matched);
  }
}
