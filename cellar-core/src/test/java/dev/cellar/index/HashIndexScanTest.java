package dev.cellar.index;

import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_BITS;
import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_END;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link HashIndex#scan} and {@link HashIndex#sample} on tables in every state: plain, after
 * backward-shift deletions, mid-migration, with probe runs that wrap around the end, and larger
 * than 2^22 slots. The check throughout: for any partition of the fingerprint space into ranges,
 * the ranges' scans together visit every entry exactly once.
 */
class HashIndexScanTest {
  /** Entries are numbered; entry i has location {@code BASE + i} and a key of the 8 bytes of i. */
  static final class Entries implements HashIndex.Keys {
    static final long BASE = 1 << 12;
    final Map<Long, Long> hashes = new HashMap<>();
    final HashIndex index;

    Entries(long expected) {
      index = new HashIndex(this, expected);
    }

    static MemorySegment key(long id) {
      MemorySegment key = MemorySegment.ofArray(new byte[8]);
      key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, id);
      return key;
    }

    void put(long id, long hash) {
      hashes.put(id, hash);
      index.put(hash, key(id), BASE + id);
    }

    void remove(long id) {
      long hash = hashes.remove(id);
      assertEquals(BASE + id, index.remove(hash, key(id)));
    }

    Set<Long> locations() {
      Set<Long> out = new HashSet<>();
      for (long id : hashes.keySet()) {
        out.add(BASE + id);
      }
      return out;
    }

    @Override
    public boolean matches(long location, MemorySegment source, long offset, long length) {
      return length == Long.BYTES
          && source.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) == location - BASE;
    }

    @Override
    public long hashAt(long location) {
      return hashes.get(location - BASE);
    }
  }

  /**
   * Scans [0, 2^22) in ranges cut at {@code cuts} and checks each entry is visited exactly once.
   */
  static void assertPartitionVisitsEachOnce(Entries e, List<Long> cuts) {
    List<Long> visited = new ArrayList<>();
    long from = 0;
    List<Long> bounds = new ArrayList<>(cuts);
    bounds.add(FINGERPRINT_END);
    for (long to : bounds) {
      if (to > from) {
        long read = e.index.scan(from, to, visited::add);
        assertTrue(
            read >= 1 && read <= e.index.memoryBytes() / IndexSlotDescriptor.BYTES,
            "slots read " + read);
        from = to;
      }
    }
    Set<Long> distinct = new HashSet<>(visited);
    assertEquals(visited.size(), distinct.size(), "an entry was visited twice");
    assertEquals(e.locations(), distinct);
  }

  static List<Long> randomCuts(Random random, int n) {
    List<Long> cuts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      cuts.add((long) random.nextInt((int) FINGERPRINT_END));
    }
    cuts.sort(null);
    return cuts;
  }

  /** Cuts at every multiple of {@code step}: ranges of one fingerprint when step is 1. */
  static List<Long> evenCuts(long step) {
    List<Long> cuts = new ArrayList<>();
    for (long c = step; c < FINGERPRINT_END; c += step) {
      cuts.add(c);
    }
    return cuts;
  }

  @Test
  void rangesOfAnEmptyIndexVisitNothing() {
    Entries e = new Entries(0);
    assertPartitionVisitsEachOnce(e, List.of());
    assertPartitionVisitsEachOnce(e, randomCuts(new Random(1), 50));
    assertEquals(0, e.index.entryOfRank(0));
  }

  @Test
  void rangesPartitionTheEntriesThroughGrowthAndDeletion() {
    Random random = new Random(42);
    Entries e = new Entries(0);
    List<Long> ids = new ArrayList<>();
    int checksDuringMigration = 0;
    for (int op = 1; op <= 6000; op++) {
      if (random.nextInt(4) > 0 || ids.isEmpty()) {
        e.put(ids.size() + 1_000_000L * op, random.nextLong());
        ids.add(ids.size() + 1_000_000L * op);
      } else {
        int at = random.nextInt(ids.size());
        e.remove(ids.get(at));
        ids.set(at, ids.getLast());
        ids.removeLast();
      }
      if (op % 37 == 0) {
        checksDuringMigration += migrating(e.index) ? 1 : 0;
        assertPartitionVisitsEachOnce(e, randomCuts(random, 1 + random.nextInt(200)));
      }
    }
    assertTrue(
        checksDuringMigration >= 3,
        "only " + checksDuringMigration + " checks ran during a migration");
    assertPartitionVisitsEachOnce(e, evenCuts(1 << 10));
  }

  @Test
  void runsThatWrapAroundTheEndAreFollowed() {
    Random random = new Random(3);
    Entries e = new Entries(0);
    // Crowd homes into the last slots of the table and the first ones, so runs cross the end.
    for (long id = 0; id < 600; id++) {
      long top = id % 2 == 0 ? FINGERPRINT_END - 1 - random.nextInt(4096) : random.nextInt(4096);
      e.put(id, (top << (64 - FINGERPRINT_BITS)) | (random.nextLong() >>> FINGERPRINT_BITS));
    }
    for (long id = 0; id < 600; id += 7) {
      e.remove(id);
    }
    assertPartitionVisitsEachOnce(e, List.of());
    assertPartitionVisitsEachOnce(e, List.of(1L, FINGERPRINT_END - 1));
    assertPartitionVisitsEachOnce(e, List.of(4096L, FINGERPRINT_END - 4096));
    assertPartitionVisitsEachOnce(e, evenCuts(64));
    for (int i = 0; i < 20; i++) {
      assertPartitionVisitsEachOnce(e, randomCuts(random, 1 + random.nextInt(30)));
    }
  }

  @Test
  void equalFingerprintsFallInOneRange() {
    Entries e = new Entries(0);
    long fingerprint = 777_777;
    for (long id = 0; id < 300; id++) {
      e.put(id, (fingerprint << (64 - FINGERPRINT_BITS)) | id);
    }
    List<Long> inRange = new ArrayList<>();
    e.index.scan(fingerprint, fingerprint + 1, inRange::add);
    assertEquals(300, inRange.size());
    List<Long> outside = new ArrayList<>();
    e.index.scan(0, fingerprint, outside::add);
    e.index.scan(fingerprint + 1, FINGERPRINT_END, outside::add);
    assertEquals(List.of(), outside);
  }

  /**
   * A table of 2^23 slots, where a fingerprint covers two home slots and deletion recomputes homes
   * from the keys (64 MiB of memory for the table).
   */
  @Test
  void tablesLargerThanTheFingerprintSpace() {
    Random random = new Random(9);
    Entries e = new Entries((3L << 20) + 1);
    assertEquals(1L << 23, e.index.capacity());
    for (long id = 0; id < 20_000; id++) {
      // Half the entries crowd around a few fingerprints, and into the table's last slots.
      long hash = random.nextLong();
      if (id % 2 == 0) {
        long top = id % 4 == 0 ? 1000 + random.nextInt(8) : FINGERPRINT_END - 1 - random.nextInt(4);
        hash = (top << (64 - FINGERPRINT_BITS)) | (hash >>> FINGERPRINT_BITS);
      }
      e.put(id, hash);
    }
    for (long id = 0; id < 20_000; id += 3) {
      e.remove(id);
    }
    assertPartitionVisitsEachOnce(e, List.of());
    List<Long> cuts = new ArrayList<>();
    for (long c = 990; c < 1020; c++) {
      cuts.add(c);
    }
    for (long c = FINGERPRINT_END - 10; c < FINGERPRINT_END; c++) {
      cuts.add(c);
    }
    assertPartitionVisitsEachOnce(e, cuts);
    assertPartitionVisitsEachOnce(e, randomCuts(random, 5000));
    e.index.close();
  }

  @Test
  void badRangesAreRefused() {
    Entries e = new Entries(0);
    assertThrows(IllegalArgumentException.class, () -> e.index.scan(5, 5, l -> {}));
    assertThrows(IllegalArgumentException.class, () -> e.index.scan(-1, 5, l -> {}));
    assertThrows(
        IllegalArgumentException.class, () -> e.index.scan(0, FINGERPRINT_END + 1, l -> {}));
  }

  @Test
  void ranksNameEveryEntryOnceDuringMigrationToo() {
    Random random = new Random(5);
    Entries e = new Entries(0);
    long id = 0;
    while (!migrating(e.index)) {
      e.put(id++, random.nextLong());
    }
    for (int i = 0; i < 10; i++) {
      e.put(id++, random.nextLong());
    }
    assertTrue(migrating(e.index));
    // 779 entries, 160 slots' worth migrated to the new table and the rest still in the old one.
    Set<Long> locations = e.locations();
    Set<Long> ranked = new HashSet<>();
    for (long rank = 0; rank < e.index.size(); rank++) {
      long location = e.index.entryOfRank(rank);
      assertTrue(locations.contains(location), "rank " + rank + " gave " + location);
      assertTrue(ranked.add(location), "rank " + rank + " repeats " + location);
    }
    assertEquals(locations, ranked);
    assertEquals(0, e.index.entryOfRank(e.index.size()));
  }

  @Test
  void probesDrawEntriesUniformly() {
    Random random = new Random(11);
    Entries e = new Entries(0);
    for (long id = 0; id < 700; id++) {
      e.put(id, random.nextLong());
    }
    Map<Long, Integer> hits = new HashMap<>();
    int draws = 0;
    while (draws < 700 * 200) {
      long location = e.index.probe(random);
      if (location != 0) {
        hits.merge(location, 1, Integer::sum);
        draws++;
      }
    }
    // 200 expected each; a binomial's spread is about 14, so 130..270 is five deviations.
    assertEquals(e.locations(), hits.keySet());
    for (int n : hits.values()) {
      assertTrue(n > 130 && n < 270, "drawn " + n + " times, not about 200");
    }
  }

  static boolean migrating(HashIndex index) {
    return index.memoryBytes() != index.capacity() * IndexSlotDescriptor.BYTES;
  }
}
