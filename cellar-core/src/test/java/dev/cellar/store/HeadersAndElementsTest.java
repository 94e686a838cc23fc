package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import dev.cellar.Cursor;
import dev.cellar.Fsync;
import dev.cellar.ScanPage;
import dev.cellar.WriteBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keyspace beneath collections: headers (values plain reads do not return) and elements (keys
 * apart from plain ones), on a real store through reopen, checkpoints and compaction.
 */
class HeadersAndElementsTest {
  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(128 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(8 << 10)
        .shards(8);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static MemorySegment seg(String s) {
    return MemorySegment.ofArray(b(s));
  }

  private static byte[] copy(MemorySegment v) {
    return v.toArray(ValueLayout.JAVA_BYTE);
  }

  /** What a {@link Cellar.HeaderSink} was handed: the bytes and the expiry, or nothing. */
  private static final class Caught implements Cellar.HeaderSink {
    byte[] value;
    long expireAt = -1;

    @Override
    public void accept(MemorySegment source, long offset, long length, long expireAt) {
      value = source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
      this.expireAt = expireAt;
    }
  }

  @Test
  void heapKeyReadsSeeWhatSegmentReadsSee() throws Exception {
    byte[] longKey = new byte[700];
    java.util.Arrays.fill(longKey, (byte) 'x');
    long later = System.currentTimeMillis() + 3_600_000;
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("k"), b("plain"));
      db.write(
          new WriteBatch()
              .putElement(b("k"), b("element"))
              .putHeader(b("h"), b("header"), later)
              .putHeader(b("soon"), b("gone"), System.currentTimeMillis() + 50)
              .putHeader(longKey, b("long"), Cellar.NO_EXPIRY)
              .putElement(longKey, b("long element")));
      assertArrayEquals(b("element"), db.getElement(b("k")));
      assertNull(db.getElement(b("h")), "a header is no element");
      assertNull(db.getElement(b("absent")));
      assertArrayEquals(b("long element"), db.getElement(longKey), "past the per-thread copy");
      Caught h = new Caught();
      assertTrue(db.readHeader(b("h"), h));
      assertArrayEquals(b("header"), h.value);
      assertEquals(later, h.expireAt);
      Caught plain = new Caught();
      assertFalse(db.readHeader(b("k"), plain), "k is plain");
      assertNull(plain.value, "the sink is not called");
      assertFalse(db.readHeader(b("absent"), new Caught()));
      Caught longHeader = new Caught();
      assertTrue(db.readHeader(longKey, longHeader));
      assertArrayEquals(b("long"), longHeader.value);
      assertEquals(Cellar.NO_EXPIRY, longHeader.expireAt);
      Thread.sleep(80);
      assertFalse(db.readHeader(b("soon"), new Caught()), "an expired header is absent");
      db.checkpoint();
      db.compact();
      Caught again = new Caught();
      assertTrue(db.readHeader(b("h"), again));
      assertArrayEquals(b("header"), again.value);
    }
    try (Cellar db = Cellar.open(dir, options())) {
      Caught h = new Caught();
      assertTrue(db.readHeader(b("h"), h));
      assertArrayEquals(b("header"), h.value);
      assertEquals(later, h.expireAt);
      assertArrayEquals(b("element"), db.getElement(b("k")));
    }
  }

  @Test
  void theSameBytesAreThreeDifferentThingsAndOnlyPlainKeysAreCounted() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("k"), b("plain"));
      db.write(new WriteBatch().putElement(b("k"), b("element")));
      db.write(new WriteBatch().putHeader(b("h"), b("header"), Cellar.NO_EXPIRY));
      assertArrayEquals(b("plain"), db.get(b("k")));
      assertArrayEquals(b("element"), db.readElement(seg("k"), HeadersAndElementsTest::copy));
      assertNull(db.readHeader(seg("k"), HeadersAndElementsTest::copy), "k is plain");
      assertNull(db.get(b("h")), "a header is not a plain value");
      assertNull(db.readElement(seg("h"), HeadersAndElementsTest::copy));
      assertArrayEquals(b("header"), db.readHeader(seg("h"), HeadersAndElementsTest::copy));
      assertTrue(db.contains(b("h")), "a header is a key");
      assertEquals(Cellar.NO_EXPIRY, db.expiryOf(b("h")));
      assertNotEquals(0, db.version(b("h")));
      assertEquals(2, db.size(), "k and h; the element is not a key");
      assertEquals(1, db.elementCount());
      assertEquals(Set.of("k", "h"), keys(c -> db.scanPage(c, 100)));
      assertEquals(Set.of("k"), keys(c -> db.scanElements(c, new byte[0], 100)));
      for (int i = 0; i < 50; i++) {
        assertNotEquals("element", new String(db.randomKey(), UTF_8));
      }
      try (Cursor c = db.scan()) {
        assertTrue(c.hasNext());
        assertEquals("k", new String(c.next().key(), UTF_8), "only plain values are entries");
        assertFalse(c.hasNext());
      }
      // A plain delete of k leaves the element; a plain put over a header replaces it.
      db.delete(b("k"));
      assertArrayEquals(b("element"), db.readElement(seg("k"), HeadersAndElementsTest::copy));
      db.put(b("h"), b("now plain"));
      assertNull(db.readHeader(seg("h"), HeadersAndElementsTest::copy));
      assertArrayEquals(b("now plain"), db.get(b("h")));
      db.write(new WriteBatch().deleteElement(b("k")));
      assertNull(db.readElement(seg("k"), HeadersAndElementsTest::copy));
      assertEquals(0, db.elementCount());
      assertEquals(1, db.size());
    }
  }

  @Test
  void anExpiredHeaderIsAbsentAndActiveExpiryFindsIt() throws Exception {
    try (Cellar db = Cellar.open(dir, options())) {
      db.write(
          new WriteBatch()
              .putHeader(b("h"), b("x"), System.currentTimeMillis() + 30)
              .putElement(b("h:1"), b("e")));
      assertArrayEquals(b("x"), db.readHeader(seg("h"), HeadersAndElementsTest::copy));
      Thread.sleep(60);
      assertNull(db.readHeader(seg("h"), HeadersAndElementsTest::copy));
      assertFalse(db.contains(b("h")));
      assertEquals(Set.of("h"), keys(c -> db.expiredKeys(c, 100)));
      assertTrue(db.deleteIfExpired(b("h")));
      assertEquals(1, db.elementCount(), "elements never expire: their owner removes them");
    }
  }

  @Test
  void theChangeStreamSaysWhichKeyspaceEachChangeIsOf() {
    try (Cellar db = Cellar.open(dir, options())) {
      long from = db.lastSeq() + 1;
      db.put(b("p"), b("1"));
      db.write(
          new WriteBatch()
              .putHeader(b("h"), b("2"), Cellar.NO_EXPIRY)
              .putElement(b("e"), b("3"))
              .deleteElement(b("absent")));
      db.write(new WriteBatch().deleteElement(b("e")));
      Map<Long, Integer> kinds = new HashMap<>();
      try (ChangeStream stream = db.changes(from)) {
        for (ChangeBatch batch = stream.poll(); batch != null; batch = stream.poll()) {
          while (batch.next()) {
            kinds.put(batch.seq(), batch.kind() * 10 + (batch.isDelete() ? 1 : 0));
          }
          if (kinds.size() >= 4) {
            break;
          }
        }
      }
      assertEquals(WriteBatch.PLAIN * 10, kinds.get(from));
      // A unit's records go in shard order, not batch order: the header and the element either way.
      assertEquals(
          java.util.Set.of(WriteBatch.HEADER * 10, WriteBatch.ELEMENT * 10),
          java.util.Set.of(kinds.get(from + 1), kinds.get(from + 2)));
      assertEquals(WriteBatch.ELEMENT * 10 + 1, kinds.get(from + 3));
      assertEquals(4, kinds.size(), "the delete of an absent element writes nothing");
    }
  }

  /**
   * A seeded random workload over the three keyspaces, with the same key names in each, checked
   * against a model after every reopen, checkpoint and compaction: every value, and both counts.
   */
  @Test
  void aRandomWorkloadMatchesItsModelThroughReopenCheckpointAndCompaction() {
    for (long seed = 1; seed <= 6; seed++) {
      Path at = dir.resolve("seed" + seed);
      SplittableRandom random = new SplittableRandom(seed);
      Map<ByteBuffer, byte[]> plain = new HashMap<>();
      Map<ByteBuffer, byte[]> headers = new HashMap<>();
      Map<ByteBuffer, byte[]> elements = new HashMap<>();
      for (int round = 0; round < 6; round++) {
        try (Cellar db = Cellar.open(at, options())) {
          check(db, plain, headers, elements, "seed " + seed + " round " + round + " (reopened)");
          for (int op = 0; op < 3000; op++) {
            WriteBatch batch = new WriteBatch();
            int n = 1 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
              byte[] key = b("k" + random.nextInt(300));
              byte[] value = b("v" + random.nextInt(1 << 20) + "x".repeat(random.nextInt(200)));
              ByteBuffer k = ByteBuffer.wrap(key);
              switch (random.nextInt(6)) {
                case 0 -> {
                  batch.put(key, value);
                  plain.put(k, value);
                  headers.remove(k);
                }
                case 1 -> {
                  batch.putHeader(key, value, Cellar.NO_EXPIRY);
                  headers.put(k, value);
                  plain.remove(k);
                }
                case 2 -> {
                  batch.delete(key);
                  plain.remove(k);
                  headers.remove(k);
                }
                case 3 -> {
                  batch.deleteElement(key);
                  elements.remove(k);
                }
                default -> {
                  batch.putElement(key, value);
                  elements.put(k, value);
                }
              }
            }
            db.write(batch);
          }
          check(db, plain, headers, elements, "seed " + seed + " round " + round);
          switch (round % 3) {
            case 0 -> db.checkpoint();
            case 1 -> db.compact();
            default -> {}
          }
          check(db, plain, headers, elements, "seed " + seed + " round " + round + " (after)");
        }
      }
    }
  }

  private static void check(
      Cellar db,
      Map<ByteBuffer, byte[]> plain,
      Map<ByteBuffer, byte[]> headers,
      Map<ByteBuffer, byte[]> elements,
      String when) {
    assertEquals(plain.size() + headers.size(), db.size(), when + ": size");
    assertEquals(elements.size(), db.elementCount(), when + ": element count");
    for (int i = 0; i < 300; i++) {
      byte[] key = b("k" + i);
      ByteBuffer k = ByteBuffer.wrap(key);
      MemorySegment s = MemorySegment.ofArray(key);
      assertArrayEquals(plain.get(k), db.get(key), when + ": plain " + i);
      assertArrayEquals(
          headers.get(k), db.readHeader(s, HeadersAndElementsTest::copy), when + ": header " + i);
      assertArrayEquals(
          elements.get(k),
          db.readElement(s, HeadersAndElementsTest::copy),
          when + ": element " + i);
    }
    Set<String> expected = new HashSet<>();
    plain.keySet().forEach(k -> expected.add(UTF_8.decode(k.duplicate()).toString()));
    headers.keySet().forEach(k -> expected.add(UTF_8.decode(k.duplicate()).toString()));
    assertEquals(expected, keys(c -> db.scanPage(c, 10_000)), when + ": scan");
  }

  /** Every key of a full iteration of pages. */
  private static Set<String> keys(java.util.function.LongFunction<ScanPage> pages) {
    Set<String> out = new HashSet<>();
    long cursor = 0;
    do {
      ScanPage page = pages.apply(cursor);
      page.keys().forEach(k -> out.add(new String(k, UTF_8)));
      cursor = page.nextCursor();
    } while (cursor != 0);
    return out;
  }
}
