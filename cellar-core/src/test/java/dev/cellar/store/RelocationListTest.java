package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RelocationListTest {

  @Test
  void entriesRoundTripAcrossChunks() {
    RelocationList list = new RelocationList();
    int n = 200_000; // several 1 MiB chunks
    SplittableRandom random = new SplittableRandom(7);
    long[] hashes = new long[n];
    long[] froms = new long[n];
    int[] outputs = new int[n];
    long[] offsets = new long[n];
    boolean[] expiries = new boolean[n];
    for (int i = 0; i < n; i++) {
      hashes[i] = random.nextLong();
      froms[i] = random.nextLong();
      outputs[i] = random.nextInt(1 << 20);
      expiries[i] = random.nextInt(10) == 0;
      offsets[i] = expiries[i] && random.nextBoolean() ? -1 : random.nextLong(Integer.MAX_VALUE);
      if (expiries[i]) {
        list.addExpiry(hashes[i], froms[i], outputs[i], offsets[i]);
      } else {
        list.addMove(hashes[i], froms[i], outputs[i], offsets[i]);
      }
    }
    assertEquals(n, list.size());
    for (int i = 0; i < n; i++) {
      assertEquals(hashes[i], list.hash(i), "hash " + i);
      assertEquals(froms[i], list.from(i), "from " + i);
      assertEquals(expiries[i], list.expired(i), "expired " + i);
      assertEquals(offsets[i], list.offset(i), "offset " + i);
      if (offsets[i] >= 0) {
        assertEquals(outputs[i], list.output(i), "output " + i);
      }
    }
    list.clear();
  }

  @Test
  void clearEmptiesAndTheListIsReusableFromAnotherThread() throws Exception {
    RelocationList list = new RelocationList();
    list.addMove(1, 2, 3, 4);
    list.clear();
    assertEquals(0, list.size());
    assertThrows(IndexOutOfBoundsException.class, () -> list.hash(0));
    // A later pass may run on another thread (an explicit compact() instead of the agent).
    Thread other =
        new Thread(
            () -> {
              list.addMove(5, 6, 7, 8);
              assertEquals(8, list.offset(0));
              list.clear();
            });
    other.start();
    other.join();
    assertEquals(0, list.size());
  }

  @Test
  void extremesOfOffsetAndOutputSurvive() {
    RelocationList list = new RelocationList();
    list.addMove(-1L, Long.MIN_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE - 1L);
    list.addExpiry(0, 0, 0, 0);
    assertEquals(Integer.MAX_VALUE - 1L, list.offset(0));
    assertEquals(Integer.MAX_VALUE, list.output(0));
    assertFalse(list.expired(0));
    assertEquals(-1L, list.hash(0));
    assertEquals(Long.MIN_VALUE, list.from(0));
    assertTrue(list.expired(1));
    assertEquals(0, list.offset(1));
    assertThrows(IllegalArgumentException.class, () -> list.addMove(1, 1, 1, Integer.MAX_VALUE));
    list.clear();
  }
}
