package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import dev.cellar.CorruptStoreException;
import dev.cellar.EncryptionKeyException;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.inspect.SegmentFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Encryption at rest, end to end through the public API and the bytes on disk: no plaintext of a
 * key or value in any file of the store at any moment, every changed byte detected, keys checked at
 * open, and rotation by compaction.
 */
class EncryptionTest {
  @TempDir Path dir;

  private static final byte[] KEY_1 = bytes(1);
  private static final byte[] KEY_2 = bytes(2);

  private static byte[] bytes(int seed) {
    byte[] key = new byte[32];
    new SplittableRandom(seed).nextBytes(key);
    return key;
  }

  private static CellarOptions options(EncryptionKeys keys, Fsync fsync) {
    return CellarOptions.defaults()
        .fsync(fsync)
        .segmentBytes(64 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(4 << 10)
        .shards(4)
        .checkpointInterval(Duration.ZERO)
        .encryptionKeys(keys);
  }

  /** A marker no random or framing bytes will contain by chance: 16 letters and digits. */
  private static String marker(String kind, int i) {
    return String.format("PLAIN%s%07dX", kind, i);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] valueOf(int i, int version) {
    return utf8(marker("VAL", i) + "-v" + version + "-" + "abcdefghij".repeat(i % 7));
  }

  /** Every file under the store directory that holds any of the markers, with the first found. */
  private static List<String> plaintextFound(Path dir, List<String> markers) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!Files.isRegularFile(f)) {
          continue;
        }
        String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        for (String m : markers) {
          if (content.contains(m)) {
            found.add(f.getFileName() + ": " + m);
            break;
          }
        }
      }
    }
    return found;
  }

  private static List<String> markers(int n) {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(marker("KEY", i));
      all.add(marker("VAL", i));
    }
    // Shorter pieces too: a leak of part of a key or value is a leak.
    all.add("PLAINKEY");
    all.add("PLAINVAL");
    all.add("abcdefghij");
    return all;
  }

  @ParameterizedTest
  @EnumSource(Fsync.class)
  void noPlaintextOnDiskAtAnyMoment(Fsync fsync) throws Exception {
    int n = 400;
    List<String> markers = markers(n);
    EncryptionKeys keys = EncryptionKeys.of(KEY_1);
    Map<String, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options(keys, fsync))) {
      for (int i = 0; i < n; i++) {
        byte[] v = valueOf(i, 0);
        db.put(utf8(marker("KEY", i)), v);
        model.put(marker("KEY", i), v);
        if (i % 97 == 0) {
          assertEquals(List.of(), plaintextFound(dir, markers), "while writing, before a sync");
        }
      }
      assertEquals(List.of(), plaintextFound(dir, markers), "before sync");
      db.sync();
      assertEquals(List.of(), plaintextFound(dir, markers), "after sync");
      // Overwrites, deletes and expiring values, then compaction and a checkpoint.
      for (int round = 1; round <= 3; round++) {
        for (int i = 0; i < n; i++) {
          if (i % 5 == 0) {
            db.delete(utf8(marker("KEY", i)));
            model.remove(marker("KEY", i));
          } else {
            byte[] v = valueOf(i, round);
            db.put(utf8(marker("KEY", i)), v);
            model.put(marker("KEY", i), v);
          }
        }
      }
      db.putWithExpiry(utf8(marker("KEY", n + 1)), utf8(marker("VAL", n + 1)), 1);
      db.compact();
      assertTrue(db.stats().compactions() > 0, "compaction rewrote something");
      db.checkpoint();
      assertEquals(List.of(), plaintextFound(dir, markers), "after compaction and a checkpoint");
      check(db, model);
    }
    assertEquals(List.of(), plaintextFound(dir, markers), "after close");
    try (Cellar db = Cellar.open(dir, options(keys, fsync))) {
      check(db, model);
    }
    assertEquals(List.of(), plaintextFound(dir, markers), "after reopen");
    // The files really are the store's: they parse, and they are encrypted.
    try (Stream<Path> files = Files.list(dir)) {
      long encrypted =
          files
              .filter(f -> SegmentFile.idOf(f.getFileName().toString()) >= 0)
              .filter(
                  f -> {
                    try (SegmentFile s = SegmentFile.open(f, keys)) {
                      return s.encrypted() && s.keyId() == 1;
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .count();
      assertTrue(encrypted > 0);
    }
  }

  private static void check(Cellar db, Map<String, byte[]> model) {
    for (Map.Entry<String, byte[]> e : model.entrySet()) {
      assertArrayEquals(e.getValue(), db.get(utf8(e.getKey())), e.getKey());
    }
    assertEquals(model.size(), db.size());
    Map<String, byte[]> scanned = new HashMap<>();
    try (dev.cellar.Cursor cursor = db.scan()) {
      while (cursor.hasNext()) {
        dev.cellar.Entry entry = cursor.next();
        scanned.put(new String(entry.key(), StandardCharsets.UTF_8), entry.value());
      }
    }
    assertEquals(model.keySet(), scanned.keySet());
    byte[][] keys = model.keySet().stream().map(EncryptionTest::utf8).toArray(byte[][]::new);
    byte[][] values = db.getAll(keys);
    for (int i = 0; i < keys.length; i++) {
      assertArrayEquals(model.get(new String(keys[i], StandardCharsets.UTF_8)), values[i]);
    }
  }

  @Test
  void readsAndTheChangeStreamSeePlaintext() {
    try (Cellar db = Cellar.open(dir, options(EncryptionKeys.of(KEY_1), Fsync.NO))) {
      db.put(utf8("a"), utf8("alpha"));
      db.put(utf8("b"), utf8("beta"), Duration.ofHours(1));
      db.delete(utf8("a"));
      assertEquals(
          "beta",
          db.read(
              utf8("b"),
              v ->
                  new String(
                      v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8)));
      assertArrayEquals(utf8("b"), db.randomKey());
      assertTrue(db.expiryOf(utf8("b")) > 0);
      List<String> seen = new ArrayList<>();
      try (ChangeStream changes = db.changes(1)) {
        ChangeBatch batch = changes.poll(Duration.ofSeconds(5));
        while (batch.next()) {
          seen.add(
              new String(
                      batch.key().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                      StandardCharsets.UTF_8)
                  + (batch.isDelete()
                      ? ""
                      : "="
                          + new String(
                              batch.value().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                              StandardCharsets.UTF_8)));
        }
      }
      assertEquals(List.of("a=alpha", "b=beta", "a"), seen);
    }
  }

  @Test
  void anyChangedByteIsDetectedNeverReturned() throws Exception {
    Path store = dir.resolve("store");
    EncryptionKeys keys = EncryptionKeys.of(KEY_1);
    Map<String, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(store, options(keys, Fsync.ALWAYS))) {
      for (int i = 0; i < 20; i++) {
        model.put("k" + i, valueOf(i, 0));
        db.put(utf8("k" + i), model.get("k" + i));
      }
      db.checkpoint(); // so that an open reads records only when they are read
    }
    Path segment;
    try (Stream<Path> files = Files.list(store)) {
      segment =
          files.filter(f -> SegmentFile.idOf(f.getFileName().toString()) >= 0).findFirst().get();
    }
    byte[] original = Files.readAllBytes(segment);
    int detected = 0;
    // Every byte of the first records, past the header and cipher block.
    for (int p = 128; p < Math.min(original.length, 128 + 400); p++) {
      Path copy = dir.resolve("copy" + p);
      copyStore(store, copy);
      byte[] damaged = original.clone();
      damaged[p] ^= 0x20;
      Files.write(copy.resolve(segment.getFileName()), damaged);
      try (Cellar db = Cellar.open(copy, options(keys, Fsync.NO))) {
        for (Map.Entry<String, byte[]> e : model.entrySet()) {
          try {
            byte[] got = db.get(utf8(e.getKey()));
            if (got != null) {
              assertArrayEquals(e.getValue(), got, "byte " + p + " changed, key " + e.getKey());
            }
          } catch (CorruptStoreException expected) {
            detected++;
          }
        }
      } catch (CorruptStoreException atOpen) {
        detected++;
      }
      deleteTree(copy);
    }
    assertTrue(detected >= 300, "changes detected: " + detected);
  }

  @Test
  void theKeyIsCheckedAtOpen() {
    try (Cellar db = Cellar.open(dir, options(EncryptionKeys.of(KEY_1), Fsync.NO))) {
      db.put(utf8("k"), utf8("v"));
    }
    EncryptionKeyException none =
        assertThrows(EncryptionKeyException.class, () -> Cellar.open(dir, options(null, Fsync.NO)));
    assertTrue(none.getMessage().contains("--encryption-key-file"), none.getMessage());
    EncryptionKeyException wrong =
        assertThrows(
            EncryptionKeyException.class,
            () -> Cellar.open(dir, options(EncryptionKeys.of(KEY_2), Fsync.NO)));
    assertTrue(wrong.getMessage().contains("wrong key"), wrong.getMessage());
    EncryptionKeyException missing =
        assertThrows(
            EncryptionKeyException.class,
            () -> Cellar.open(dir, options(EncryptionKeys.of(Map.of(2, KEY_2)), Fsync.NO)));
    assertTrue(missing.getMessage().contains("lacks"), missing.getMessage());
    // Nothing was changed: the right key still opens it.
    try (Cellar db = Cellar.open(dir, options(EncryptionKeys.of(KEY_1), Fsync.NO))) {
      assertArrayEquals(utf8("v"), db.get(utf8("k")));
    }
  }

  @Test
  void rotationRewritesOldSegmentsWithTheNewKey() throws Exception {
    int n = 300;
    try (Cellar db = Cellar.open(dir, options(EncryptionKeys.of(KEY_1), Fsync.NO))) {
      for (int i = 0; i < n; i++) {
        db.put(utf8(marker("KEY", i)), valueOf(i, 0));
      }
    }
    EncryptionKeys both = EncryptionKeys.of(Map.of(1, KEY_1, 2, KEY_2));
    try (Cellar db = Cellar.open(dir, options(both, Fsync.NO))) {
      db.put(utf8("new"), utf8("data"));
      db.compact();
      db.checkpoint();
      assertEquals(List.of(2), keyIds(both));
    }
    try (Cellar db = Cellar.open(dir, options(EncryptionKeys.of(Map.of(2, KEY_2)), Fsync.NO))) {
      for (int i = 0; i < n; i++) {
        assertArrayEquals(valueOf(i, 0), db.get(utf8(marker("KEY", i))));
      }
      assertArrayEquals(utf8("data"), db.get(utf8("new")));
    }
  }

  @Test
  void aPlaintextStoreGivenKeysIsEncryptedByCompaction() throws Exception {
    int n = 300;
    try (Cellar db = Cellar.open(dir, options(null, Fsync.NO))) {
      for (int i = 0; i < n; i++) {
        db.put(utf8(marker("KEY", i)), valueOf(i, 0));
      }
    }
    assertFalse(plaintextFound(dir, markers(n)).isEmpty(), "the test's markers are findable");
    EncryptionKeys keys = EncryptionKeys.of(KEY_1);
    try (Cellar db = Cellar.open(dir, options(keys, Fsync.NO))) {
      db.compact();
      db.checkpoint();
      for (int i = 0; i < n; i++) {
        assertArrayEquals(valueOf(i, 0), db.get(utf8(marker("KEY", i))));
      }
    }
    assertEquals(List.of(), plaintextFound(dir, markers(n)));
    assertEquals(List.of(1), keyIds(keys));
  }

  @Test
  void keyFiles() throws Exception {
    Path one = dir.resolve("one.key");
    Files.writeString(one, "# a key\n" + HexFormat.of().formatHex(KEY_1) + "\n");
    EncryptionKeys k1 = EncryptionKeys.load(one);
    assertEquals(1, k1.currentId());
    assertEquals(EncryptionKeys.of(KEY_1), k1);
    Path two = dir.resolve("two.key");
    Files.writeString(
        two,
        "2 " + HexFormat.of().formatHex(KEY_2) + "\n\n1 " + HexFormat.of().formatHex(KEY_1) + "\n");
    EncryptionKeys k2 = EncryptionKeys.load(two);
    assertEquals(2, k2.currentId());
    assertEquals(List.of(1, 2), k2.ids());
    Path bad = dir.resolve("bad.key");
    Files.writeString(bad, "1 " + HexFormat.of().formatHex(KEY_1).substring(2) + "zz\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> EncryptionKeys.load(bad));
    assertTrue(e.getMessage().contains("line 1"), e.getMessage());
    assertFalse(e.getMessage().contains(HexFormat.of().formatHex(KEY_1).substring(4, 20)));
    Files.writeString(
        bad, "1 " + HexFormat.of().formatHex(KEY_1) + "\n1 " + HexFormat.of().formatHex(KEY_2));
    assertThrows(IllegalArgumentException.class, () -> EncryptionKeys.load(bad));
    Files.writeString(bad, "# nothing\n");
    assertThrows(IllegalArgumentException.class, () -> EncryptionKeys.load(bad));
    assertFalse(k2.toString().contains(HexFormat.of().formatHex(KEY_2).substring(0, 8)));
    assertNull(null);
  }

  private List<Integer> keyIds(EncryptionKeys keys) throws IOException {
    List<Integer> ids = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        if (SegmentFile.idOf(f.getFileName().toString()) < 0) {
          continue;
        }
        try (SegmentFile s = SegmentFile.open(f, keys)) {
          int id = s.keyId();
          if (!ids.contains(id)) {
            ids.add(id);
          }
        }
      }
    }
    return ids;
  }

  private static void copyStore(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!f.getFileName().toString().equals("LOCK")) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    }
  }
}
