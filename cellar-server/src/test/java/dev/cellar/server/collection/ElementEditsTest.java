package dev.cellar.server.collection;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ElementEdits} against a map on the heap: few keys (found by comparison) and many (found
 * through its map), keys changed again and deleted within one command, read back before and after
 * the commit.
 */
class ElementEditsTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void editsReadBackAsMadeAndCommitAsTheLastOfEach() {
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.NO).shards(4);
    try (Cellar db = Cellar.open(dir, options)) {
      Map<String, String> model = new HashMap<>();
      SplittableRandom random = new SplittableRandom(18);
      for (int command = 0; command < 300; command++) {
        ElementEdits edits = new ElementEdits(db);
        Map<String, String> pending = new HashMap<>(model);
        // A third of the commands change one to three keys, the rest up to forty.
        int changes = command % 3 == 0 ? 1 + random.nextInt(3) : random.nextInt(40);
        for (int i = 0; i < changes; i++) {
          String key = "e" + random.nextInt(60);
          if (random.nextInt(4) == 0) {
            edits.delete(b(key));
            pending.remove(key);
          } else {
            String value = key + "@" + command + "." + i;
            edits.put(b(key), b(value));
            pending.put(key, value);
          }
          String probe = "e" + random.nextInt(60);
          String seen = pending.get(probe);
          byte[] read = edits.get(b(probe));
          assertEquals(seen, read == null ? null : new String(read, UTF_8), probe);
        }
        assertEquals(changes == 0, edits.isEmpty());
        if (random.nextInt(10) == 0) {
          // Abandoned: nothing it made is written.
          continue;
        }
        edits.commit();
        assertTrue(edits.isEmpty(), "commit forgets the edits");
        model = pending;
        for (int k = 0; k < 60; k++) {
          String key = "e" + k;
          byte[] stored = db.getElement(b(key));
          assertEquals(model.get(key), stored == null ? null : new String(stored, UTF_8), key);
        }
      }
    }
  }

  @Test
  void headersAreWrittenWithTheElementsAsOneUnit() {
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.NO).shards(4);
    try (Cellar db = Cellar.open(dir, options)) {
      ElementEdits edits = new ElementEdits(db);
      long later = System.currentTimeMillis() + 60_000;
      Header first = new Header(CollectionDescriptor.SET, 7, 1, 0, 0);
      edits.header(b("s"), first, Cellar.NO_EXPIRY);
      edits.header(b("s"), first.withCount(2), later);
      edits.header(b("gone"), null, Cellar.NO_EXPIRY);
      edits.put(b("m"), b("1"));
      long before = db.lastSeq();
      edits.commit();
      assertEquals(before + 2, db.lastSeq(), "the header once, the element; no delete of nothing");
      Header stored =
          db.readHeader(MemorySegment.ofArray(b("s")), CollectionDescriptor::decodeHeader);
      assertEquals(2, stored.count(), "the header's last write wins");
      assertEquals(later, db.expiryOf(b("s")));
      assertArrayEquals(b("1"), db.getElement(b("m")));
      assertNull(db.getElement(b("gone")));
      assertFalse(db.contains(b("gone")));
    }
  }
}
