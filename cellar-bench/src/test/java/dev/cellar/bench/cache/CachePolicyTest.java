package dev.cellar.bench.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Each policy on short sequences whose hits and evictions follow from its definition by hand; the
 * comments carry the working. A sequence is written as the keys asked for, and {@code "MMMH"} is
 * the miss/hit outcome expected for each.
 */
class CachePolicyTest {

  @Test
  void lruEvictsTheLeastRecentlyUsed() {
    CachePolicy lru = new LruPolicy(3);
    // 1 2 3 fill; the hit on 1 makes 2 the oldest, so 4 evicts 2 (FIFO would evict 1) and 1 hits
    // again; 5 evicts 3; 2 evicts 4, the oldest now that 1 was used after it.
    assertEquals("MMMHMHMM", play(lru, 1, 2, 3, 1, 4, 1, 5, 2));
    assertEquals(List.of(1, 2, 5), held(lru, 6));
  }

  @Test
  void lruDecidesAsALinkedHashMapInAccessOrder() {
    int capacity = 100;
    CachePolicy lru = new LruPolicy(capacity);
    Map<Integer, Boolean> model =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
            return size() > capacity;
          }
        };
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 100_000; i++) {
      int key = random.nextInt(300);
      boolean expected = model.get(key) != null;
      if (!expected) {
        model.put(key, true);
      }
      assertEquals(expected, lru.access(key), "request " + i + ", key " + key);
    }
    assertEquals(new TreeSet<>(model.keySet()), new TreeSet<>(held(lru, 300)));
  }

  @Test
  void clockGivesAReferencedEntryASecondChance() {
    CachePolicy clock = new ClockPolicy(3);
    // Slots [1 2 3], hand at slot 0. The hit on 1 sets its bit. 4: the hand clears 1's bit and
    // replaces 2 (bit clear), stopping at slot 2. 5 replaces 3, the hand wraps to slot 0. 6: 1's
    // bit was cleared by the first pass, so 1 goes now (SIEVE would keep it: see below).
    assertEquals("MMMHMMM", play(clock, 1, 2, 3, 1, 4, 5, 6));
    assertEquals(List.of(4, 5, 6), held(clock, 7));
  }

  @Test
  void clockClearsTheBitsItPassesAndSparesWhatWasHitSince() {
    CachePolicy clock = new ClockPolicy(3);
    // As above up to 4, which leaves [1 4 3] with 1's bit cleared and the hand at slot 2. 1 hits
    // again and sets its bit. 5 replaces 3 (slot 2), the hand wraps. 6: the hand clears 1's bit
    // again and replaces 4.
    assertEquals("MMMHMHMM", play(clock, 1, 2, 3, 1, 4, 1, 5, 6));
    assertEquals(List.of(1, 5, 6), held(clock, 7));
    assertEquals(2, clock.hitsThatWrote(), "each hit found 1's bit clear");
  }

  @Test
  void clockEntriesStartUnreferenced() {
    CachePolicy clock = new ClockPolicy(2);
    // Neither 1 nor 2 was asked for again, so 3 replaces 1 where the hand stands.
    assertEquals("MMM", play(clock, 1, 2, 3));
    assertEquals(List.of(2, 3), held(clock, 4));
    assertEquals(0, clock.hitsThatWrote());
    assertEquals("HH", play(clock, 3, 3));
    assertEquals(1, clock.hitsThatWrote(), "only the first hit sets the bit");
  }

  @Test
  void sieveKeepsASurvivorInPlaceAndMovesTheHandOn() {
    CachePolicy sieve = new SievePolicy(3);
    // Queue, oldest first: [1 2 3]. 1 is visited. 4: the hand starts at the tail, clears 1, evicts
    // 2 and stays at 3: [1 3 4]. 5 evicts 3 ([1 4 5]), 6 evicts 4 ([1 5 6]): 1 stays, since the
    // hand does not go back to the tail. 5 is visited. 7: the hand clears 5, evicts 6 (the head),
    // so the hand goes back to the tail: [1 5 7]. 8: the hand is at 1, unvisited now: [5 7 8].
    assertEquals("MMMHMMMHMM", play(sieve, 1, 2, 3, 1, 4, 5, 6, 5, 7, 8));
    assertEquals(List.of(5, 7, 8), held(sieve, 9));
  }

  @Test
  void sieveAfterSixMatchesTheHandOnlyDefinition() {
    CachePolicy sieve = new SievePolicy(3);
    play(sieve, 1, 2, 3, 1, 4, 5, 6);
    assertEquals(List.of(1, 5, 6), held(sieve, 7), "CLOCK holds 4 5 6 here; SIEVE keeps 1");
  }

  @Test
  void s3FifoPromotesOnlyWhatWasAskedForAgainAndRemembersTheRest() {
    S3FifoPolicy s3 = new S3FifoPolicy(10); // small queue 1, main 9, ghost 9
    play(s3, IntStream.rangeClosed(1, 10).toArray()); // all ten in the small queue
    assertEquals(10, s3.smallSize());
    // 1 is asked for again. 11: the small queue's tail, 1, has a hit and moves to main; the next
    // tail, 2, has none and is evicted to the ghost.
    assertEquals("HM", play(s3, 1, 11));
    assertEquals(List.of(1, 3, 4, 5, 6, 7, 8, 9, 10, 11), held(s3, 12));
    assertEquals(1, s3.mainSize());
    assertEquals(1, s3.ghostSize());
    // 2 again: a miss; 3 (no hit) is evicted to the ghost to make room, and 2, remembered by the
    // ghost, goes straight to main.
    assertEquals("M", play(s3, 2));
    assertEquals(List.of(1, 2, 4, 5, 6, 7, 8, 9, 10, 11), held(s3, 12));
    assertEquals(2, s3.mainSize());
    assertEquals(1, s3.ghostSize(), "2 left the ghost, 3 entered it");
  }

  @Test
  void s3FifoMainQueueReinsertsWhileTheCounterLasts() {
    S3FifoPolicy s3 = new S3FifoPolicy(10);
    play(s3, IntStream.rangeClosed(1, 10).toArray());
    play(s3, IntStream.rangeClosed(1, 10).toArray()); // every entry has a hit
    // 11: each tail of the small queue moves to main with its counter reset; the tenth overfills
    // main (9), which evicts its tail, 1 (counter 0). The small queue is then empty.
    assertEquals("M", play(s3, 11));
    assertEquals(List.of(2, 3, 4, 5, 6, 7, 8, 9, 10, 11), held(s3, 12));
    assertEquals(0, s3.ghostSize(), "nothing left the small queue unrequested");
    play(s3, 2, 2); // 2's counter is 2
    // 12 evicts 11 (small, no hit) to the ghost. 11 again: 12 goes to the ghost for room, 11 to
    // main, which now holds all ten; the small queue is empty.
    assertEquals("MM", play(s3, 12, 11));
    assertEquals(10, s3.mainSize());
    // 13: the small queue is under its tenth, so main evicts: its tail 2 has a count and goes back
    // to the head one lower; the next, 3, has none and goes.
    assertEquals("M", play(s3, 13));
    assertEquals(List.of(2, 4, 5, 6, 7, 8, 9, 10, 11, 13), held(s3, 14));
  }

  @Test
  void s3FifoCountsAtMostThree() {
    S3FifoPolicy s3 = new S3FifoPolicy(10);
    play(s3, 1, 1, 1, 1, 1, 1);
    assertEquals(3, s3.hitsThatWrote(), "hits beyond the third write nothing");
  }

  @Test
  void everyPolicyStaysWithinItsCapacity() {
    for (PolicyKind kind : PolicyKind.values()) {
      for (int capacity : new int[] {1, 2, 3, 10, 97}) {
        CachePolicy policy = kind.create(capacity);
        SplittableRandom random = new SplittableRandom(capacity);
        for (int i = 0; i < 20_000; i++) {
          int key = random.nextInt(4 * capacity + 3);
          policy.access(key);
          assertTrue(policy.contains(key), kind + ": the key just asked for is held");
          assertTrue(
              policy.size() <= capacity,
              kind + " at " + capacity + ": size " + policy.size() + " after request " + i);
        }
        if (kind != PolicyKind.S3_FIFO) {
          // S3-FIFO may evict a few more than one entry for one miss (a promotion that overfills
          // the main queue); the others evict exactly one, once full.
          assertEquals(capacity, policy.size(), kind + " fills to " + capacity);
        }
      }
    }
  }

  @Test
  void indexAgreesWithAHashMapThroughInsertsAndRemovals() {
    IntIndex index = new IntIndex(1000);
    Map<Integer, Integer> model = new LinkedHashMap<>();
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 200_000; i++) {
      int key = random.nextInt(3000);
      if (random.nextBoolean() && (model.size() < 1000 || model.containsKey(key))) {
        index.put(key, i);
        model.put(key, i);
      } else {
        Integer removed = model.remove(key);
        assertEquals(removed == null ? IntIndex.ABSENT : removed, index.remove(key));
      }
      assertEquals(model.getOrDefault(key, IntIndex.ABSENT), index.get(key));
    }
    assertEquals(model.size(), index.size());
    for (int key = 0; key < 3000; key++) {
      assertEquals(model.getOrDefault(key, IntIndex.ABSENT), index.get(key), "key " + key);
    }
  }

  private static String play(CachePolicy policy, int... keys) {
    StringBuilder outcome = new StringBuilder();
    for (int key : keys) {
      outcome.append(policy.access(key) ? 'H' : 'M');
    }
    return outcome.toString();
  }

  private static List<Integer> held(CachePolicy policy, int below) {
    List<Integer> keys = new ArrayList<>();
    for (int key = 0; key < below; key++) {
      if (policy.contains(key)) {
        keys.add(key);
      }
    }
    assertEquals(keys.size(), policy.size(), "size agrees with the keys held");
    assertFalse(keys.size() > policy.capacity());
    return keys;
  }
}
