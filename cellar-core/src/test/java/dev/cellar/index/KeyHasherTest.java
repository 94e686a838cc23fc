package dev.cellar.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyHasherTest {
  /** SipHash-1-3 of the reference key 00..0f over the message 00..0e (15 bytes). */
  @Test
  void matchesTheReferenceVector() {
    long k0 = 0x0706050403020100L;
    long k1 = 0x0f0e0d0c0b0a0908L;
    byte[] message = new byte[15];
    for (int i = 0; i < message.length; i++) {
      message[i] = (byte) i;
    }
    KeyHasher hasher = new KeyHasher(k0, k1);
    assertEquals(0xd320d86d2a519956L, hasher.hash(message));
    assertEquals(0xd320d86d2a519956L, hasher.hash(MemorySegment.ofArray(message)));
  }

  @Test
  void arrayAndSegmentPathsAgreeForEveryLength() {
    Random random = new Random(7);
    KeyHasher hasher = new KeyHasher(random.nextLong(), random.nextLong());
    for (int length = 0; length < 70; length++) {
      byte[] key = new byte[length];
      random.nextBytes(key);
      byte[] padded = new byte[length + 5];
      System.arraycopy(key, 0, padded, 3, length);
      long expected = hasher.hash(key);
      assertEquals(expected, hasher.hash(MemorySegment.ofArray(key)), "length " + length);
      assertEquals(
          expected,
          hasher.hash(MemorySegment.ofArray(padded), 3, length),
          "offset slice, length " + length);
      assertEquals(expected, hasher.hash(padded, 3, length), "array slice, length " + length);
    }
  }
}
