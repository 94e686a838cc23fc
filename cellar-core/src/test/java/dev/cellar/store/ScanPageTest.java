package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.ScanPage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Cellar#scanPage} and {@link Cellar#randomKey} on a quiet store; see {@link
 * ScanConcurrencyTest}.
 */
class ScanPageTest {
  @TempDir Path dir;

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(1 << 20)
        .maxValueBytes(64 << 10)
        .shards(8);
  }

  /** Follows cursors from 0 to 0; fails if a key comes twice. */
  static List<String> iterate(Cellar db, String prefix, int count) {
    List<String> keys = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    long cursor = ScanPage.START;
    do {
      ScanPage page = db.scanPage(cursor, b(prefix), count);
      for (byte[] key : page.keys()) {
        String k = new String(key, UTF_8);
        assertTrue(seen.add(k), "returned twice: " + k);
        keys.add(k);
      }
      cursor = page.nextCursor();
    } while (cursor != ScanPage.START);
    return keys;
  }

  static Set<String> keys(String prefix, int n) {
    Set<String> out = new HashSet<>();
    for (int i = 0; i < n; i++) {
      out.add(prefix + i);
    }
    return out;
  }

  @Test
  void anEmptyStoreIsOnePageWithNoKeys() {
    try (Cellar db =
        Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO).expectedKeys(100_000))) {
      ScanPage page = db.scanPage(ScanPage.START, 10);
      assertEquals(ScanPage.START, page.nextCursor());
      assertTrue(page.complete());
      assertEquals(List.of(), page.keys());
      assertNull(db.randomKey());
    }
  }

  @Test
  void returnsEveryKeyOnceWhateverTheCount() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 5000; i++) {
        db.put(b("user:" + i), b("v" + i));
      }
      for (int count : new int[] {1, 3, 10, 100, 10_000, Integer.MAX_VALUE}) {
        List<String> keys = iterate(db, "", count);
        assertEquals(5000, keys.size());
        assertEquals(keys("user:", 5000), new HashSet<>(keys));
      }
    }
  }

  @Test
  void pagesHoldAboutCountKeys() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 20_000; i++) {
        db.put(b("user:" + i), b("v"));
      }
      int pages = 0;
      long cursor = ScanPage.START;
      do {
        ScanPage page = db.scanPage(cursor, b(""), 100);
        assertTrue(page.keys().size() <= 400, "page of " + page.keys().size());
        cursor = page.nextCursor();
        pages++;
      } while (cursor != ScanPage.START);
      // 200 pages if every page held exactly 100 keys.
      assertTrue(pages >= 100 && pages <= 400, pages + " pages");
    }
  }

  @Test
  void onlyKeysWithThePrefix() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 1000; i++) {
        db.put(b("a:" + i), b("1"));
        db.put(b("b:" + i), b("2"));
        db.put(b("a" + i), b("3"));
      }
      assertEquals(keys("a:", 1000), new HashSet<>(iterate(db, "a:", 10)));
      assertEquals(keys("b:", 1000), new HashSet<>(iterate(db, "b:", 50)));
      assertEquals(3000, iterate(db, "", 50).size());
      assertEquals(2000, iterate(db, "a", 50).size());
      assertEquals(List.of(), iterate(db, "c", 50));
      assertEquals(Set.of("a:999"), new HashSet<>(iterate(db, "a:999", 50)));
    }
  }

  @Test
  void expiredAndDeletedKeysAreLeftOut() throws InterruptedException {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 300; i++) {
        db.put(b("live:" + i), b("1"));
        db.put(b("gone:" + i), b("1"));
        db.putWithExpiry(b("brief:" + i), b("1"), System.currentTimeMillis() + 100);
        db.put(b("later:" + i), b("1"), Duration.ofHours(1));
      }
      for (int i = 0; i < 300; i++) {
        db.delete(b("gone:" + i));
      }
      Thread.sleep(200);
      Set<String> expected = keys("live:", 300);
      expected.addAll(keys("later:", 300));
      assertEquals(expected, new HashSet<>(iterate(db, "", 7)));
      for (int i = 0; i < 200; i++) {
        String k = new String(db.randomKey(), UTF_8);
        assertTrue(expected.contains(k), k);
      }
    }
  }

  @Test
  void aCursorStaysValidAcrossReopen() {
    Set<String> seen = new HashSet<>();
    long cursor;
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 3000; i++) {
        db.put(b("k" + i), b("v"));
      }
      cursor = ScanPage.START;
      for (int page = 0; page < 10; page++) {
        ScanPage p = db.scanPage(cursor, b(""), 50);
        p.keys().forEach(k -> assertTrue(seen.add(new String(k, UTF_8))));
        cursor = p.nextCursor();
      }
      assertTrue(cursor != ScanPage.START);
    }
    try (Cellar db = Cellar.open(dir, options())) {
      do {
        ScanPage p = db.scanPage(cursor, b(""), 50);
        p.keys().forEach(k -> assertTrue(seen.add(new String(k, UTF_8))));
        cursor = p.nextCursor();
      } while (cursor != ScanPage.START);
    }
    assertEquals(keys("k", 3000), seen);
  }

  @Test
  void cursorsAreSmallAndForeignOnesAreRefused() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 1000; i++) {
        db.put(b("k" + i), b("v"));
      }
      long cursor = ScanPage.START;
      do {
        cursor = db.scanPage(cursor, b(""), 10).nextCursor();
        assertTrue(cursor >= 0 && cursor < 8L << 22, "cursor " + cursor);
      } while (cursor != ScanPage.START);
      for (long bad : new long[] {8L << 22, -1, Long.MIN_VALUE, 1L << 40}) {
        CellarException e = assertThrows(CellarException.class, () -> db.scanPage(bad, 10));
        assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
        assertTrue(e.getMessage().contains(Long.toUnsignedString(bad)), e.getMessage());
      }
      CellarException e = assertThrows(CellarException.class, () -> db.scanPage(0, 0));
      assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
    }
  }

  @Test
  void randomKeysCoverTheStore() {
    try (Cellar db = Cellar.open(dir, options())) {
      assertNull(db.randomKey());
      for (int i = 0; i < 100; i++) {
        db.put(b("k" + i), b("v"));
      }
      Map<String, Integer> hits = new HashMap<>();
      for (int i = 0; i < 30_000; i++) {
        byte[] key = db.randomKey();
        assertNotNull(key);
        hits.merge(new String(key, UTF_8), 1, Integer::sum);
      }
      // 100 keys in 8 tables of 1024 slots: sparse, so most draws are by rank, uniform too: 300
      // expected each, a binomial's spread about 17, so 200..400 is six deviations.
      assertEquals(keys("k", 100), hits.keySet());
      for (int n : hits.values()) {
        assertTrue(n > 200 && n < 400, "drawn " + n + " times, not about 300: " + hits);
      }
      for (int i = 0; i < 100; i++) {
        db.delete(b("k" + i));
      }
      assertNull(db.randomKey());
    }
  }

  /**
   * Two keys among many empty shards (Redis's own RANDOMKEY test): each comes up about half the
   * time. A walk to the first non-empty shard after a random one once drew the key after the longer
   * run of empty shards nearly every time.
   */
  @Test
  void twoKeysInASparseStoreComeUpEquallyOften() {
    try (Cellar db = Cellar.open(dir, options().shards(64))) {
      db.put(b("foo"), b("x"));
      db.put(b("bar"), b("y"));
      Map<String, Integer> hits = new HashMap<>();
      for (int i = 0; i < 2_000; i++) {
        hits.merge(new String(db.randomKey(), UTF_8), 1, Integer::sum);
      }
      // 1,000 expected each, spread about 22: 850..1150 is nearly seven deviations.
      assertEquals(Set.of("foo", "bar"), hits.keySet());
      for (int n : hits.values()) {
        assertTrue(n > 850 && n < 1150, hits.toString());
      }
    }
  }

  @Test
  void randomKeysAreUniformInAnIndexOfUsualLoad() {
    try (Cellar db = Cellar.open(dir, options().shards(1))) {
      for (int i = 0; i < 700; i++) {
        db.put(b("k" + i), b("v"));
      }
      Map<String, Integer> hits = new HashMap<>();
      for (int i = 0; i < 70_000; i++) {
        hits.merge(new String(db.randomKey(), UTF_8), 1, Integer::sum);
      }
      // One table of 1024 slots, 700 full: 100 draws expected per key, spread about 10.
      assertEquals(keys("k", 700), hits.keySet());
      for (int n : hits.values()) {
        assertTrue(n > 50 && n < 160, "drawn " + n + " times, not about 100");
      }
    }
  }

  @Test
  void randomKeyGivesUpOnAStoreOfExpiredKeys() throws InterruptedException {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 50; i++) {
        db.putWithExpiry(b("k" + i), b("v"), System.currentTimeMillis() + 50);
      }
      Thread.sleep(100);
      assertFalse(db.size() == 0);
      assertNull(db.randomKey());
      db.put(b("survivor"), b("v"));
      // One live key among 50 expired ones: a call usually finds it, but need not.
      int found = 0;
      for (int i = 0; i < 100; i++) {
        found += db.randomKey() == null ? 0 : 1;
      }
      assertTrue(found > 0);
    }
  }
}
