package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import dev.cellar.Compression;
import dev.cellar.CorruptStoreException;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.inspect.SegmentFile;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compression end to end through the public API and the files: compaction compresses sealed
 * segments with a dictionary trained on the store's values, every read path returns the values
 * written, a reopen (with compression on, off or another codec) reads them, encryption applies on
 * top, and a changed byte of a compressed record is never returned.
 */
class CompressionTest {
  @TempDir Path dir;

  private static CellarOptions options(Compression codec) {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(256 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(64 << 10)
        .shards(4)
        .checkpointInterval(Duration.ZERO)
        .backgroundCompaction(false)
        .compression(codec);
  }

  private static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"
  };

  /** A JSON document of about 1 KB, the same for the same {@code i} and {@code version}. */
  static byte[] document(int i, int version) {
    SplittableRandom r = new SplittableRandom(i * 31L + version);
    StringBuilder b = new StringBuilder(1100);
    b.append("{\"id\":").append(i).append(",\"version\":").append(version);
    b.append(",\"user\":{\"name\":\"user").append(r.nextInt(100_000)).append("\",\"email\":\"");
    b.append("user").append(r.nextInt(100_000)).append("@example.com\",\"active\":");
    b.append(r.nextBoolean()).append("},\"tags\":[");
    for (int t = 0; t < 5; t++) {
      b.append(t == 0 ? "" : ",").append('"').append(WORDS[r.nextInt(WORDS.length)]).append('"');
    }
    b.append("],\"events\":[");
    while (b.length() < 950) {
      b.append("{\"type\":\"")
          .append(WORDS[r.nextInt(WORDS.length)])
          .append("\",\"at\":")
          .append(1_700_000_000_000L + r.nextInt(1_000_000_000))
          .append(",\"amount\":")
          .append(r.nextInt(10_000) / 100.0)
          .append("},");
    }
    b.setLength(b.length() - 1);
    b.append("]}");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Compaction passes until one finds nothing to do: each takes a few segments at most. */
  static void compactFully(Cellar db) {
    for (int pass = 0; pass < 100 && db.compact() > 0; pass++) {}
  }

  static byte[] key(int i) {
    return ("doc:" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static long segmentBytes(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> SegmentFile.idOf(f.getFileName().toString()) >= 0)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .sum();
    }
  }

  private static List<Compression> codecsOnDisk(Path dir, EncryptionKeys keys) throws IOException {
    List<Compression> codecs = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (SegmentFile.idOf(f.getFileName().toString()) >= 0) {
          try (SegmentFile s = SegmentFile.open(f, keys)) {
            codecs.add(s.compression());
          }
        }
      }
    }
    return codecs;
  }

  static void check(Cellar db, Map<Integer, byte[]> model) {
    for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
      assertArrayEquals(e.getValue(), db.get(key(e.getKey())), "doc " + e.getKey());
    }
    assertEquals(model.size(), db.size());
    Map<String, byte[]> scanned = new HashMap<>();
    try (dev.cellar.Cursor cursor = db.scan()) {
      while (cursor.hasNext()) {
        dev.cellar.Entry entry = cursor.next();
        scanned.put(new String(entry.key(), StandardCharsets.UTF_8), entry.value());
      }
    }
    assertEquals(model.size(), scanned.size());
    for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
      assertArrayEquals(e.getValue(), scanned.get("doc:" + e.getKey()));
    }
    byte[][] keys = model.keySet().stream().map(CompressionTest::key).toArray(byte[][]::new);
    byte[][] values = db.getAll(keys);
    Integer[] ids = model.keySet().toArray(Integer[]::new);
    for (int i = 0; i < keys.length; i++) {
      assertArrayEquals(model.get(ids[i]), values[i]);
    }
    // Zero-copy reads hand the decompressed value.
    for (int id : ids) {
      byte[] got = db.read(key(id), v -> v.toArray(ValueLayout.JAVA_BYTE));
      assertArrayEquals(model.get(id), got);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"LZ4", "ZSTD"})
  void compactionCompressesAndEveryReadPathReturnsTheValues(Compression codec) throws Exception {
    int n = 3000;
    Map<Integer, byte[]> model = new HashMap<>();
    long plainBytes;
    try (Cellar db = Cellar.open(dir, options(codec))) {
      for (int i = 0; i < n; i++) {
        model.put(i, document(i, 0));
        db.put(key(i), model.get(i));
      }
      db.put(key(n), new byte[] {1, 2, 3}); // too short to compress
      model.put(n, new byte[] {1, 2, 3});
      db.put(key(n + 1), new byte[40_000]); // compresses to almost nothing
      model.put(n + 1, new byte[40_000]);
      byte[] random = new byte[2000];
      new SplittableRandom(7).nextBytes(random); // does not compress
      db.put(key(n + 2), random);
      model.put(n + 2, random);
      db.sync();
      plainBytes = segmentBytes(dir);
      compactFully(db);
      db.checkpoint();
      check(db, model);
      assertTrue(db.stats().compactions() > 0);
    }
    long compressedBytes = segmentBytes(dir);
    assertTrue(
        compressedBytes < plainBytes * 0.5,
        codec + ": " + compressedBytes + " bytes on disk compressed, " + plainBytes + " before");
    List<Compression> codecs = codecsOnDisk(dir, null);
    assertTrue(codecs.contains(codec), codecs.toString());
    // Reopened as it was, with compression off, and with the other codec: all read the same.
    for (Compression reopenWith : Compression.values()) {
      try (Cellar db = Cellar.open(dir, options(reopenWith))) {
        check(db, model);
      }
    }
  }

  @Test
  void overwritesDeletesAndExpiryOverCompressedSegments() throws Exception {
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options(Compression.ZSTD))) {
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 1500; i++) {
          if ((i + round) % 7 == 0) {
            db.delete(key(i));
            model.remove(i);
          } else {
            model.put(i, document(i, round));
            db.put(key(i), model.get(i));
          }
        }
        db.putWithExpiry(key(100_000 + round), document(round, 99), 1);
        compactFully(db);
        check(db, model);
      }
      db.checkpoint();
    }
    try (Cellar db = Cellar.open(dir, options(Compression.ZSTD))) {
      check(db, model);
    }
  }

  @Test
  void theChangeStreamReadsCompressedSegments() throws Exception {
    try (Cellar db = Cellar.open(dir, options(Compression.LZ4))) {
      for (int i = 0; i < 1000; i++) {
        db.put(key(i), document(i, 0));
      }
      compactFully(db);
      int seen = 0;
      try (ChangeStream changes = db.changes(1)) {
        while (changes.position() <= 1000) {
          ChangeBatch batch = changes.poll(Duration.ofSeconds(5));
          while (batch.next()) {
            String k =
                new String(batch.key().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            int i = Integer.parseInt(k.substring(4));
            assertArrayEquals(document(i, 0), batch.value().toArray(ValueLayout.JAVA_BYTE));
            seen++;
          }
        }
      }
      assertEquals(1000, seen);
    }
  }

  @Test
  void encryptedAndCompressedHoldsNoPlaintext() throws Exception {
    byte[] storeKey = new byte[32];
    new SplittableRandom(3).nextBytes(storeKey);
    EncryptionKeys keys = EncryptionKeys.of(storeKey);
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options(Compression.ZSTD).encryptionKeys(keys))) {
      for (int i = 0; i < 2000; i++) {
        model.put(i, document(i, 0));
        db.put(key(i), model.get(i));
      }
      compactFully(db);
      db.checkpoint();
      check(db, model);
    }
    assertEquals(List.of(), plaintext(dir), "files holding document text");
    assertTrue(codecsOnDisk(dir, keys).contains(Compression.ZSTD));
    try (Cellar db = Cellar.open(dir, options(Compression.NONE).encryptionKeys(keys))) {
      check(db, model);
    }
  }

  /** Files holding text every document has (so does a dictionary trained on them). */
  private static List<String> plaintext(Path dir) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
          if (content.contains("example.com") || content.contains("\"events\"")) {
            found.add(f.getFileName().toString());
          }
        }
      }
    }
    return found;
  }

  @Test
  void aChangedByteOfACompressedSegmentIsNeverReturned() throws Exception {
    Path store = dir.resolve("store");
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(store, options(Compression.ZSTD))) {
      for (int i = 0; i < 2000; i++) {
        model.put(i, document(i, 0));
        db.put(key(i), model.get(i));
      }
      compactFully(db);
      db.checkpoint();
    }
    Path compressed = null;
    try (Stream<Path> files = Files.list(store)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (SegmentFile.idOf(f.getFileName().toString()) >= 0) {
          try (SegmentFile s = SegmentFile.open(f)) {
            if (s.compression() == Compression.ZSTD) {
              compressed = f;
            }
          }
        }
      }
    }
    assertNotEquals(null, compressed);
    byte[] original = Files.readAllBytes(compressed);
    SplittableRandom r = new SplittableRandom(11);
    int detected = 0;
    for (int trial = 0; trial < 60; trial++) {
      // Bytes anywhere: the codec block with its dictionary, and the records.
      int p = 64 + r.nextInt(original.length - 64);
      Path copy = dir.resolve("copy" + trial);
      Files.createDirectories(copy);
      try (Stream<Path> files = Files.list(store)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.copy(f, copy.resolve(f.getFileName()));
        }
      }
      byte[] damaged = original.clone();
      damaged[p] ^= 0x10;
      Files.write(copy.resolve(compressed.getFileName()), damaged);
      try (Cellar db = Cellar.open(copy, options(Compression.ZSTD))) {
        for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
          try {
            byte[] got = db.get(key(e.getKey()));
            if (got != null) {
              assertArrayEquals(e.getValue(), got, "byte " + p + " changed, doc " + e.getKey());
            }
          } catch (CorruptStoreException expected) {
            detected++;
          }
        }
      } catch (CorruptStoreException atOpen) {
        detected++;
      }
    }
    assertTrue(detected >= 50, "changes detected: " + detected);
  }
}
