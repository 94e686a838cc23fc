package dev.cellar.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keys aimed at one home slot by someone who knows a hash seed: they pile into one probe run under
 * that seed (the attack works, so this test can fail), and spread out under any other seed, which
 * is what every store gets (a random seed in its meta file, never reported).
 */
class HostileKeysTest {
  private static final int KEYS = 1_500;

  /** Top hash bits the crafted keys share: enough to land in slot 0 of tables up to 2^14 slots. */
  private static final int AIMED_BITS = 14;

  @Test
  void keysAimedUnderAKnownSeedCollideOnlyUnderThatSeed() {
    KeyHasher known = new KeyHasher(0x5eed_0000_0000_0001L, 0x5eed_0000_0000_0002L);
    List<byte[]> hostile = craftKeysWithTopBitsZero(known, KEYS);

    assertEquals(
        KEYS, longestRun(known, hostile), "under the attacker's seed all keys share one probe run");

    SecureRandom random = new SecureRandom();
    for (int store = 0; store < 5; store++) {
      KeyHasher fresh = new KeyHasher(random.nextLong(), random.nextLong());
      int run = longestRun(fresh, hostile);
      // At load 0.18, linear probing's longest run over 8192 slots is around 10; 40 would
      // already be a one-in-many-millions event for uniformly spread hashes.
      assertTrue(run < 40, "longest probe run " + run + " under a fresh seed");
    }
  }

  /** Brute force, as an attacker would: about 2^14 hashes per key. */
  private static List<byte[]> craftKeysWithTopBitsZero(KeyHasher hasher, int count) {
    List<byte[]> keys = new ArrayList<>(count);
    for (long candidate = 0; keys.size() < count; candidate++) {
      byte[] key = ("user:" + Long.toHexString(candidate)).getBytes(StandardCharsets.US_ASCII);
      if (hasher.hash(key) >>> (64 - AIMED_BITS) == 0) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Inserts {@code keys} into a fresh index hashed by {@code hasher}; the longest occupied run. */
  private static int longestRun(KeyHasher hasher, List<byte[]> keys) {
    HashIndex.Keys byPosition =
        new HashIndex.Keys() {
          @Override
          public boolean matches(long location, MemorySegment source, long offset, long length) {
            return Arrays.equals(
                keys.get((int) location - 2),
                source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
          }

          @Override
          public long hashAt(long location) {
            return hasher.hash(keys.get((int) location - 2));
          }
        };
    try (HashIndex index = new HashIndex(byPosition, 4L * keys.size())) {
      for (int i = 0; i < keys.size(); i++) {
        byte[] key = keys.get(i);
        index.put(
            hasher.hash(key), MemorySegment.ofArray(key), i + 2); // 0 and 1 are reserved words
      }
      index.completeMigration();
      MemorySegment slots = index.slots();
      long capacity = slots.byteSize() / Long.BYTES;
      int longest = 0;
      int run = 0;
      // Twice round so a run that wraps past the last slot is counted whole.
      for (long i = 0; i < 2 * capacity; i++) {
        boolean occupied =
            slots.getAtIndex(ValueLayout.JAVA_LONG, i % capacity) != IndexSlotDescriptor.EMPTY;
        run = occupied ? run + 1 : 0;
        longest = Math.max(longest, Math.min(run, (int) capacity));
      }
      return longest;
    }
  }
}
