package dev.cellar.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The location-only operations compaction uses ({@link HashIndex#holds}, {@link
 * HashIndex#relocate}, {@link HashIndex#removeLocation}) against a model, through growth and
 * migration, with many keys sharing a hash (so sharing a fingerprint and a probe run): a location
 * the index no longer maps its key to must never be reported as held or be moved.
 */
class HashIndexLocationTest {
  /** Keys are longs; each record location maps to the key written there. */
  private static final class Model implements HashIndex.Keys {
    final Map<Long, Long> keyAt = new HashMap<>();
    final Map<Long, Long> hashOf = new HashMap<>();
    final Map<Long, Long> current = new HashMap<>();
    final HashIndex index = new HashIndex(this, 0);
    long nextLocation = 1;

    static MemorySegment key(long key) {
      MemorySegment segment = MemorySegment.ofArray(new byte[8]);
      segment.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key);
      return segment;
    }

    long write(long key) {
      long location = nextLocation++;
      keyAt.put(location, key);
      long previous = index.put(hashOf.get(key), key(key), location);
      assertEquals(current.getOrDefault(key, 0L), previous);
      current.put(key, location);
      return location;
    }

    @Override
    public boolean matches(long location, MemorySegment source, long offset, long length) {
      return length == Long.BYTES
          && keyAt.get(location) == source.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    @Override
    public long hashAt(long location) {
      return hashOf.get(keyAt.get(location));
    }
  }

  @Test
  void onlyTheCurrentLocationIsHeldMovedOrRemoved() {
    Random random = new Random(7);
    Model m = new Model();
    long[] sharedHashes = {random.nextLong(), random.nextLong(), random.nextLong()};
    List<Long> keys = new ArrayList<>();
    List<Long> stale = new ArrayList<>();
    long nextKey = 0;
    for (int op = 0; op < 20_000; op++) {
      int choice = random.nextInt(10);
      if (choice < 4 || keys.isEmpty()) {
        long key = nextKey++;
        // A third of the keys share one of three hashes: long probe runs of equal fingerprints.
        m.hashOf.put(
            key, random.nextInt(3) == 0 ? sharedHashes[random.nextInt(3)] : random.nextLong());
        keys.add(key);
        m.write(key);
      } else if (choice < 7) {
        long key = keys.get(random.nextInt(keys.size()));
        stale.add(m.current.get(key));
        m.write(key);
      } else if (choice < 9) {
        // Compaction moving a record, sometimes one that has since been overwritten.
        long key = keys.get(random.nextInt(keys.size()));
        long from =
            !stale.isEmpty() && random.nextBoolean()
                ? stale.get(random.nextInt(stale.size()))
                : m.current.get(key);
        long owner = m.keyAt.get(from);
        boolean live = m.current.getOrDefault(owner, 0L) == from;
        long to = m.nextLocation++;
        m.keyAt.put(to, owner);
        assertEquals(live, m.index.relocate(m.hashOf.get(owner), from, to), "relocate " + from);
        if (live) {
          m.current.put(owner, to);
          stale.add(from);
        }
      } else {
        // Compaction dropping an expired record, sometimes a stale one.
        long key = keys.get(random.nextInt(keys.size()));
        long location =
            !stale.isEmpty() && random.nextBoolean()
                ? stale.get(random.nextInt(stale.size()))
                : m.current.get(key);
        long owner = m.keyAt.get(location);
        boolean live = m.current.getOrDefault(owner, 0L) == location;
        assertEquals(
            live,
            m.index.removeLocation(m.hashOf.get(owner), location),
            "removeLocation " + location);
        if (live) {
          m.current.remove(owner);
          keys.remove(owner);
          stale.add(location);
        }
      }
      if (op % 101 == 0) {
        for (long key : keys) {
          assertTrue(
              m.index.holds(m.hashOf.get(key), m.current.get(key)),
              "current location of key " + key);
        }
        for (long location : stale) {
          long owner = m.keyAt.get(location);
          assertFalse(
              m.index.holds(m.hashOf.get(owner), location),
              "stale location " + location + " of key " + owner);
        }
        assertEquals(keys.size(), m.index.size());
      }
    }
    assertTrue(m.index.capacity() > 1024, "the index never grew: " + m.index.capacity());
  }
}
