package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarOptions;
import dev.cellar.ScanPage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Active expiry through the public API: {@link Cellar#expiredKeys} finds exactly the keys whose
 * values have expired but are still indexed, {@link Cellar#deleteIfExpired} reclaims them (the size
 * drops, the count of expired keys rises, a reopen does not bring them back), and it never deletes
 * a key that lives, including one written again after it was found expired.
 */
class ActiveExpiryTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return ScanPageTest.b(s);
  }

  private static CellarOptions options() {
    return ScanPageTest.options(); // small segments and values, 8 shards
  }

  /** Every expired key of a full iteration, each once. */
  private static Set<String> expired(Cellar db, int count) {
    Set<String> keys = new HashSet<>();
    long cursor = ScanPage.START;
    do {
      ScanPage page = db.expiredKeys(cursor, count);
      for (byte[] key : page.keys()) {
        assertTrue(keys.add(new String(key, UTF_8)), "found twice");
      }
      cursor = page.nextCursor();
    } while (cursor != ScanPage.START);
    return keys;
  }

  @Test
  void expiredKeysAreFoundReclaimedAndStayGone() throws Exception {
    long soon = System.currentTimeMillis() + 300;
    Set<String> due = new HashSet<>();
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 2_000; i++) {
        String key = "k" + i;
        switch (i % 4) {
          case 0 -> {
            db.putWithExpiry(b(key), b("v"), soon);
            due.add(key);
          }
          case 1 -> db.putWithExpiry(b(key), b("v"), System.currentTimeMillis() + 3_600_000);
          case 2 -> db.put(b(key), b("v"));
          default -> {
            db.putWithExpiry(b(key), b("v"), soon);
            db.delete(b(key)); // deleted before it expires: not in the index at all
          }
        }
      }
      assertEquals(Set.of(), expired(db, 100), "nothing has expired yet");
      while (System.currentTimeMillis() <= soon) {
        Thread.sleep(20);
      }
      assertEquals(1_500, db.size(), "expired keys are still counted until reclaimed");
      assertEquals(due, expired(db, 100));
      assertEquals(due, expired(db, 7), "whatever the page size");
      long before = db.stats().expiredKeys();
      for (String key : due) {
        assertTrue(db.deleteIfExpired(b(key)), key);
        assertFalse(db.deleteIfExpired(b(key)), "once");
      }
      assertEquals(1_000, db.size());
      assertEquals(before + due.size(), db.stats().expiredKeys());
      assertEquals(Set.of(), expired(db, 100));
      assertFalse(db.deleteIfExpired(b("k1")), "a key with a future expiry lives");
      assertFalse(db.deleteIfExpired(b("k2")), "a key without one lives");
      assertFalse(db.deleteIfExpired(b("missing")));
      assertEquals(1_000, db.size());
    }
    try (Cellar db = Cellar.open(dir, options())) {
      assertEquals(1_000, db.size(), "the tombstones keep them gone after a reopen");
      assertNull(db.get(b("k0")));
      assertTrue(db.contains(b("k1")));
    }
  }

  @Test
  void aKeyWrittenAgainAfterItWasFoundExpiredIsNotDeleted() throws Exception {
    try (Cellar db = Cellar.open(dir, options())) {
      db.putWithExpiry(b("k"), b("old"), System.currentTimeMillis() + 50);
      Thread.sleep(80);
      assertEquals(Set.of("k"), expired(db, 10));
      db.put(b("k"), b("new")); // between the scan and the delete
      assertFalse(db.deleteIfExpired(b("k")));
      assertEquals("new", new String(db.get(b("k")), UTF_8));
    }
  }

  @Test
  void aCursorThisStoreNeverGaveIsRefused() {
    try (Cellar db = Cellar.open(dir, options())) {
      assertThrows(CellarException.class, () -> db.expiredKeys(-5, 10));
      assertThrows(CellarException.class, () -> db.expiredKeys(ScanPage.START, 0));
    }
  }
}
