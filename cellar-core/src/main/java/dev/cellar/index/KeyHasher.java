package dev.cellar.index;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * SipHash-1-3 of key bytes under a 128-bit secret (the store's random seed, kept in its meta file
 * and never reported).
 *
 * <p>Why SipHash rather than a faster non-cryptographic hash: keys come from untrusted clients, and
 * the index is open addressing, where many keys with one home slot turn every probe into a long
 * scan. Murmur- and City-style hashes have seed-independent multicollisions; SipHash is a keyed
 * PRF, so without the seed an attacker cannot aim keys. SipHash-1-3 (one compression round, three
 * finalisation rounds, the variant Rust's HashMap uses) costs about 15 ns for a 16-byte key here.
 */
public final class KeyHasher {
  private static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final long k0;
  private final long k1;

  public KeyHasher(long k0, long k1) {
    this.k0 = k0;
    this.k1 = k1;
  }

  /**
   * What the hash of an element key is made from its SipHash: a constant is XORed in, whose top
   * bits are not zero, so an element's fingerprint ({@link IndexSlotDescriptor#fingerprint}) never
   * equals that of a plain key of the same bytes and the index never compares the two. A keyed hash
   * XOR a constant is as hard to aim as the keyed hash.
   */
  public static long element(long hash) {
    return hash ^ ELEMENT_TWEAK;
  }

  /** The hash of a record's key, given its SipHash and its type nibble. */
  public static long ofRecord(long hash, int type) {
    return dev.cellar.log.RecordDescriptor.isElement(type) ? element(hash) : hash;
  }

  private static final long ELEMENT_TWEAK = 0x9E3779B97F4A7C15L;

  /** SipHash-1-3 of a heap key, read through a byte-array view (cheaper than a heap segment). */
  public long hash(byte[] key) {
    return hash(key, 0, key.length);
  }

  /** {@link #hash(byte[])} of {@code length} bytes of {@code data} from {@code offset}. */
  public long hash(byte[] data, int offset, int length) {
    long v0 = k0 ^ 0x736f6d6570736575L;
    long v1 = k1 ^ 0x646f72616e646f6dL;
    long v2 = k0 ^ 0x6c7967656e657261L;
    long v3 = k1 ^ 0x7465646279746573L;
    int end = offset + (length & ~7);
    for (int at = offset; at < end; at += 8) {
      long m = (long) ARRAY_LE_LONG.get(data, at);
      v3 ^= m;
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
      v0 ^= m;
    }
    long last = ((long) length & 0xFF) << 56;
    int rest = length & 7;
    if (rest != 0 && length >= 8) {
      // The last 8 bytes in one load, shifted down to the rest: no loop a byte.
      last |= (long) ARRAY_LE_LONG.get(data, offset + length - 8) >>> (64 - 8 * rest);
    } else {
      for (int i = rest - 1; i >= 0; i--) {
        last |= (long) (data[end + i] & 0xFF) << (8 * i);
      }
    }
    return finish(v0, v1, v2, v3, last);
  }

  private static final java.lang.invoke.VarHandle ARRAY_LE_LONG =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  public long hash(MemorySegment key) {
    return hash(key, 0, key.byteSize());
  }

  /** SipHash-1-3 of {@code length} bytes of {@code data} from {@code offset}. */
  public long hash(MemorySegment data, long offset, long length) {
    long v0 = k0 ^ 0x736f6d6570736575L;
    long v1 = k1 ^ 0x646f72616e646f6dL;
    long v2 = k0 ^ 0x6c7967656e657261L;
    long v3 = k1 ^ 0x7465646279746573L;
    long end = offset + (length & ~7L);
    for (long at = offset; at < end; at += 8) {
      long m = data.get(LE_LONG, at);
      v3 ^= m;
      // one compression round
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
      v0 ^= m;
    }
    long last = (length & 0xFF) << 56;
    int rest = (int) (length & 7);
    if (rest != 0 && length >= 8) {
      last |= data.get(LE_LONG, offset + length - 8) >>> (64 - 8 * rest);
    } else {
      for (int i = rest - 1; i >= 0; i--) {
        last |= (long) (data.get(ValueLayout.JAVA_BYTE, end + i) & 0xFF) << (8 * i);
      }
    }
    return finish(v0, v1, v2, v3, last);
  }

  /** The last block's compression round and the three finalisation rounds. */
  private static long finish(long v0, long v1, long v2, long v3, long last) {
    v3 ^= last;
    v0 += v1;
    v1 = Long.rotateLeft(v1, 13);
    v1 ^= v0;
    v0 = Long.rotateLeft(v0, 32);
    v2 += v3;
    v3 = Long.rotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Long.rotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Long.rotateLeft(v1, 17);
    v1 ^= v2;
    v2 = Long.rotateLeft(v2, 32);
    v0 ^= last;
    v2 ^= 0xFF;
    for (int r = 0; r < 3; r++) {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }
}
