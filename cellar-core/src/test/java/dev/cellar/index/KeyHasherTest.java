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

  /** Every length, against a plain SipHash-1-3 written from the paper, a byte at a time. */
  @Test
  void matchesAByteWiseSipHashForEveryLength() {
    Random random = new Random(11);
    for (int sample = 0; sample < 20; sample++) {
      long k0 = random.nextLong();
      long k1 = random.nextLong();
      KeyHasher hasher = new KeyHasher(k0, k1);
      for (int length = 0; length < 70; length++) {
        byte[] key = new byte[length];
        random.nextBytes(key);
        long expected = reference(k0, k1, key);
        assertEquals(expected, hasher.hash(key), "length " + length);
        assertEquals(expected, hasher.hash(MemorySegment.ofArray(key)), "length " + length);
      }
    }
  }

  private static long reference(long k0, long k1, byte[] m) {
    long[] v = {
      k0 ^ 0x736f6d6570736575L,
      k1 ^ 0x646f72616e646f6dL,
      k0 ^ 0x6c7967656e657261L,
      k1 ^ 0x7465646279746573L
    };
    int blocks = m.length / 8;
    for (int b = 0; b <= blocks; b++) {
      long word = 0;
      int bytes = b < blocks ? 8 : m.length % 8;
      for (int i = 0; i < bytes; i++) {
        word |= (m[8 * b + i] & 0xFFL) << (8 * i);
      }
      if (b == blocks) {
        word |= (m.length & 0xFFL) << 56;
      }
      v[3] ^= word;
      round(v);
      v[0] ^= word;
    }
    v[2] ^= 0xFF;
    round(v);
    round(v);
    round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
  }

  private static void round(long[] v) {
    v[0] += v[1];
    v[1] = Long.rotateLeft(v[1], 13) ^ v[0];
    v[0] = Long.rotateLeft(v[0], 32);
    v[2] += v[3];
    v[3] = Long.rotateLeft(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = Long.rotateLeft(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = Long.rotateLeft(v[1], 17) ^ v[2];
    v[2] = Long.rotateLeft(v[2], 32);
  }
}
