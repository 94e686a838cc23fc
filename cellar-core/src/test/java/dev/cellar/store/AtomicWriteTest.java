package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import dev.cellar.WriteBatch;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Cellar#write(WriteBatch)} and {@link Cellar#version(byte[])} on a real store. */
class AtomicWriteTest {
  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.ALWAYS)
        .segmentBytes(256 << 10)
        .maxValueBytes(16 << 10)
        .shards(16);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aBatchIsWrittenWholeAndSurvivesReopenCompactionAndCheckpoints() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("gone"), b("x"));
      WriteBatch batch = new WriteBatch();
      for (int i = 0; i < 100; i++) {
        batch.put(b("k" + i), b("v" + i));
      }
      batch.delete(b("gone"));
      long before = db.lastSeq();
      db.write(batch);
      assertEquals(before + 101, db.lastSeq(), "one record per operation, one seq each");
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(b("v" + i), db.get(b("k" + i)));
      }
      assertNull(db.get(b("gone")));
    }
    try (Cellar db = Cellar.open(dir, options())) {
      assertEquals(100, db.size());
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(b("v" + i), db.get(b("k" + i)));
      }
      for (int round = 0; round < 30; round++) {
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < 100; i++) {
          batch.put(b("k" + i), b(("r" + round + "-" + i).repeat(20)));
        }
        db.write(batch);
      }
      db.compact();
      db.checkpoint();
    }
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(b(("r29-" + i).repeat(20)), db.get(b("k" + i)));
      }
    }
  }

  @Test
  void theLastOperationOnAKeyWinsAndAbsentDeletesWriteNothing() {
    try (Cellar db = Cellar.open(dir, options())) {
      WriteBatch batch =
          new WriteBatch().put(b("a"), b("1")).delete(b("a")).put(b("a"), b("3")).delete(b("b"));
      long before = db.lastSeq();
      db.write(batch);
      assertArrayEquals(b("3"), db.get(b("a")));
      assertEquals(before + 1, db.lastSeq(), "one put; the delete of an absent key writes nothing");
      db.write(new WriteBatch().delete(b("nothing")).delete(b("here")));
      assertEquals(before + 1, db.lastSeq());
      db.write(new WriteBatch());
      db.write(new WriteBatch().put(b("a"), b("4"), System.currentTimeMillis() - 1));
      assertNull(db.get(b("a")), "an expiry in the past deletes, as putWithExpiry does");
      long expiry = System.currentTimeMillis() + 60_000;
      db.write(new WriteBatch().put(b("t"), b("5"), expiry));
      assertEquals(expiry, db.expiryOf(b("t")));
    }
  }

  /**
   * A thread reuses one reduction for its units (a large one is not kept): units after a large unit
   * and after a refused one are written whole, each key with its own value.
   */
  @Test
  void unitsAfterLargeAndRefusedUnitsAreWrittenWhole() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int round = 0; round < 3; round++) {
        WriteBatch large = new WriteBatch(0);
        for (int i = 0; i < 600; i++) {
          large.put(b("large" + round + ":" + i + "x".repeat(40)), b("v" + i));
        }
        db.write(large);
        WriteBatch small =
            new WriteBatch(2).put(b("a"), b("a" + round)).putElement(b("a"), b("e" + round));
        db.write(small);
        assertArrayEquals(b("a" + round), db.get(b("a")));
        assertArrayEquals(b("e" + round), db.getElement(b("a")));
        WriteBatch refused = new WriteBatch().put(b("b"), new byte[1 << 20]);
        assertThrows(LimitExceededException.class, () -> db.write(refused));
        db.write(new WriteBatch().put(b("c"), b("c" + round)).delete(b("a")));
        assertNull(db.get(b("a")));
        assertArrayEquals(b("c" + round), db.get(b("c")));
        assertArrayEquals(b("e" + round), db.getElement(b("a")), "the element is another key");
        for (int i = 0; i < 600; i += 97) {
          assertArrayEquals(b("v" + i), db.get(b("large" + round + ":" + i + "x".repeat(40))));
        }
      }
      assertThrows(IllegalArgumentException.class, () -> new WriteBatch(-1));
    }
  }

  @Test
  void aUnitLargerThanASegmentIsRefusedAndWritesNothing() {
    try (Cellar db = Cellar.open(dir, options())) {
      WriteBatch batch = new WriteBatch();
      for (int i = 0; i < 40; i++) {
        batch.put(b("big" + i), new byte[16 << 10]);
      }
      long before = db.lastSeq();
      LimitExceededException e = assertThrows(LimitExceededException.class, () -> db.write(batch));
      assertTrue(e.getMessage().contains("more than one segment holds"), e.getMessage());
      assertEquals(before, db.lastSeq());
      assertEquals(0, db.size());
      assertThrows(
          LimitExceededException.class,
          () -> db.write(new WriteBatch().put(b("v"), new byte[(16 << 10) + 1])));
      assertEquals(0, db.size());
    }
  }

  @Test
  void versionsChangeWithEveryWriteAndReadZeroWhenAbsent() throws Exception {
    try (Cellar db = Cellar.open(dir, options())) {
      assertEquals(0, db.version(b("k")));
      db.put(b("k"), b("1"));
      long v1 = db.version(b("k"));
      assertTrue(v1 > 0);
      assertEquals(v1, db.version(b("k")), "a read changes nothing");
      db.put(b("k"), b("1"));
      long v2 = db.version(b("k"));
      assertNotEquals(v1, v2, "the same value written again is a write");
      db.write(new WriteBatch().put(b("k"), b("2")).put(b("j"), b("3")));
      assertNotEquals(v2, db.version(b("k")));
      db.delete(b("k"));
      assertEquals(0, db.version(b("k")));
      db.putWithExpiry(b("e"), b("x"), System.currentTimeMillis() + 30);
      assertTrue(db.version(b("e")) > 0);
      Thread.sleep(60);
      assertEquals(0, db.version(b("e")), "an expired value has no version");
    }
  }

  @Test
  void noReaderSeesPartOfAUnit() throws Exception {
    try (Cellar db = Cellar.open(dir, options().fsync(Fsync.NO))) {
      int keys = 64;
      WriteBatch first = new WriteBatch();
      for (int i = 0; i < keys; i++) {
        first.put(b("pair" + i), b("0"));
      }
      db.write(first);
      AtomicBoolean done = new AtomicBoolean();
      AtomicReference<String> torn = new AtomicReference<>();
      CountDownLatch started = new CountDownLatch(1);
      Thread reader =
          Thread.ofPlatform()
              .start(
                  () -> {
                    started.countDown();
                    byte[][] names = new byte[keys][];
                    for (int i = 0; i < keys; i++) {
                      names[i] = b("pair" + i);
                    }
                    while (!done.get() && torn.get() == null) {
                      // Rounds only grow, so a key read later showing an older round than one read
                      // before means a unit was seen half applied.
                      long newest = -1;
                      for (int i = keys - 1; i >= 0; i--) {
                        long v = Long.parseLong(new String(db.get(names[i]), UTF_8));
                        if (v < newest) {
                          torn.set("key " + i + " at " + v + " after another at " + newest);
                        }
                        newest = Math.max(newest, v);
                      }
                    }
                  });
      started.await();
      for (int round = 1; round <= 3000; round++) {
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < keys; i++) {
          batch.put(b("pair" + i), b(Integer.toString(round)));
        }
        db.write(batch);
      }
      done.set(true);
      reader.join();
      assertNull(torn.get(), torn.get());
      assertFalse(reader.isAlive());
    }
  }
}
