package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The one-word header decoder must agree with the byte-wise one on every record and on garbage. */
class RecordViewTest {
  @Test
  void fastAndSlowDecodersAgreeOnRecords() {
    Random random = new Random(11);
    for (int i = 0; i < 20_000; i++) {
      int keyLength = 1 + (random.nextInt(4) == 0 ? random.nextInt(40_000) : random.nextInt(40));
      int valueLength = random.nextInt(4) == 0 ? random.nextInt(70_000) : random.nextInt(200);
      long seq =
          switch (random.nextInt(4)) {
            case 0 -> random.nextInt(128);
            case 1 -> random.nextInt(1 << 21);
            case 2 -> random.nextLong(1L << 40);
            default -> random.nextLong(1L << 54);
          };
      boolean delete = random.nextInt(5) == 0;
      long expireAt = !delete && random.nextBoolean() ? 1 + random.nextLong(1L << 45) : 0;
      byte[] key = new byte[keyLength];
      random.nextBytes(key);
      byte[] value = new byte[delete ? 0 : valueLength];
      random.nextBytes(value);
      int type = delete ? RecordDescriptor.DELETE : RecordDescriptor.PUT;
      long length = RecordDescriptor.length(keyLength, value.length, seq, expireAt != 0);
      MemorySegment log = MemorySegment.ofArray(new byte[(int) length + 16]);
      RecordDescriptor.write(
          log,
          3,
          type,
          MemorySegment.ofArray(key),
          delete ? null : MemorySegment.ofArray(value),
          seq,
          expireAt);
      RecordView fast = new RecordView();
      RecordView slow = new RecordView();
      assertTrue(fast.parse(log, 3, 3 + length));
      assertTrue(slow.parseSlow(log, 3, 3 + length));
      assertSame(fast, slow, "record " + i);
      assertTrue(fast.checksumValid());
      assertEquals(seq, fast.seq());
      assertEquals(expireAt, fast.expireAt());
      assertTrue(fast.keyEquals(MemorySegment.ofArray(key)));
      assertEquals(length, fast.length());
    }
  }

  @Test
  void fastAndSlowDecodersAgreeOnGarbage() {
    Random random = new Random(13);
    byte[] bytes = new byte[64];
    for (int i = 0; i < 200_000; i++) {
      random.nextBytes(bytes);
      if (random.nextBoolean()) {
        bytes[4] = (byte) (random.nextBoolean() ? 1 : 0x81);
      }
      MemorySegment log = MemorySegment.ofArray(bytes);
      long limit = 9 + random.nextInt(55);
      RecordView fast = new RecordView();
      RecordView slow = new RecordView();
      boolean f = fast.parse(log, 0, limit);
      boolean s = slow.parseSlow(log, 0, limit);
      assertEquals(s, f, "garbage sample " + i);
      if (f) {
        assertSame(fast, slow, "garbage sample " + i);
      }
    }
  }

  private static void assertSame(RecordView a, RecordView b, String what) {
    assertEquals(b.type(), a.type(), what);
    assertEquals(b.keyLength(), a.keyLength(), what);
    assertEquals(b.storedValueLength(), a.storedValueLength(), what);
    assertEquals(b.seq(), a.seq(), what);
    assertEquals(b.expireAt(), a.expireAt(), what);
    assertEquals(b.keyOffset(), a.keyOffset(), what);
    assertEquals(b.length(), a.length(), what);
  }
}
