package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CorruptStoreException;
import dev.cellar.Fsync;
import dev.cellar.IncompatibleFormatException;
import dev.cellar.log.Crc32c;
import dev.cellar.log.RecordView;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentScanner;
import dev.cellar.store.Store;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damages store files the ways disks and file systems do and checks that each is detected and
 * handled: torn tails are cut off silently (reported), damage in sealed data fails the open with
 * file, offset and bytes unless salvage is asked for, and a damaged value is never returned.
 */
class CorruptionTest {
  @TempDir Path root;

  static final CellarOptions OPTIONS =
      CellarOptions.defaults()
          .fsync(Fsync.NO)
          .segmentBytes(1 << 20)
          .maxValueBytes(64 << 10)
          .shards(8)
          .backgroundCompaction(false)
          .checkpointInterval(java.time.Duration.ZERO);

  /** A record found in a segment file. */
  record Located(Path file, long offset, long length, String key, long valueOffset) {}

  private Map<String, String> populate(Path dir, int keys) {
    Map<String, String> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, OPTIONS)) {
      for (int i = 0; i < keys; i++) {
        String v = "value-" + i + "-" + "z".repeat(i % 40);
        db.put(("key" + i).getBytes(UTF_8), v.getBytes(UTF_8));
        model.put("key" + i, v);
      }
    }
    return model;
  }

  static List<Located> records(Path dir) throws IOException {
    List<Located> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir);
        Arena arena = Arena.ofConfined()) {
      for (Path f :
          files.filter(p -> p.getFileName().toString().startsWith("seg-")).sorted().toList()) {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
          MemorySegment m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
          long limit =
              SegmentHeaderDescriptor.isSealed(m)
                  ? SegmentHeaderDescriptor.sealedLength(m)
                  : m.byteSize();
          SegmentScanner.scan(
              m,
              SegmentHeaderDescriptor.LENGTH,
              limit,
              false,
              (RecordView r) ->
                  out.add(
                      new Located(
                          f,
                          r.offset(),
                          r.length(),
                          new String(
                              r.key().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8),
                          r.valueOffset())));
        }
      }
    }
    return out;
  }

  private static void deleteCheckpoints(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        if (p.getFileName().toString().startsWith("checkpoint-")) {
          Files.delete(p);
        }
      }
    }
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x10);
    }
  }

  static void copyDir(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path p : files.toList()) {
        if (!p.getFileName().toString().equals("LOCK")) {
          Files.copy(p, to.resolve(p.getFileName()));
        }
      }
    }
  }

  @Test
  void tornTailIsTruncatedAtEveryByteOffset() throws Exception {
    Path live = root.resolve("live");
    Path image = root.resolve("image");
    Map<String, String> model = new HashMap<>();
    // Copy the files of an open store: the image has an unsealed segment, as after a crash.
    try (Cellar db = Cellar.open(live, OPTIONS)) {
      for (int i = 0; i < 200; i++) {
        db.put(("key" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8));
        model.put("key" + i, "v" + i);
      }
      db.sync();
      copyDir(live, image);
    }
    List<Located> recs = records(image);
    Located last = recs.getLast();
    assertEquals("key199", last.key());
    for (long cut = last.offset(); cut < last.offset() + last.length(); cut++) {
      Path trial = root.resolve("cut" + cut);
      copyDir(image, trial);
      try (FileChannel ch =
          FileChannel.open(trial.resolve(last.file().getFileName()), StandardOpenOption.WRITE)) {
        ch.truncate(cut);
      }
      try (Store db = Store.open(trial, OPTIONS)) {
        for (int i = 0; i < 199; i++) {
          assertArrayEquals(
              ("v" + i).getBytes(UTF_8), db.get(("key" + i).getBytes(UTF_8)), "cut " + cut);
        }
        assertNull(db.get("key199".getBytes(UTF_8)), "torn record must not appear, cut " + cut);
        if (cut > last.offset()) {
          assertTrue(
              db.recoveryReport().notes().stream().anyMatch(n -> n.contains("torn tail")),
              db.recoveryReport().toString());
        }
      }
      // The store was sealed at its valid end and reopens cleanly.
      try (Store db = Store.open(trial, OPTIONS)) {
        assertArrayEquals("v198".getBytes(UTF_8), db.get("key198".getBytes(UTF_8)));
        assertTrue(db.recoveryReport().fatal().isEmpty());
      }
    }
  }

  @Test
  void bitFlipInSealedValueFailsOpenWithFileAndOffsetUnlessSalvaging() throws Exception {
    Path dir = root.resolve("db");
    Map<String, String> model = populate(dir, 500);
    Located victim = records(dir).get(250);
    flipByte(victim.file(), victim.valueOffset() + 2);
    deleteCheckpoints(dir);
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, OPTIONS));
    String damage = String.join("\n", e.damage());
    assertTrue(damage.contains(victim.file().getFileName().toString()), damage);
    assertTrue(damage.contains("offset " + victim.offset()), damage);
    assertTrue(damage.contains("bytes skipped"), damage);
    try (Store db = Store.open(dir, OPTIONS.salvage(true))) {
      assertNull(db.get(victim.key().getBytes(UTF_8)), "damaged record must not be served");
      for (var m : model.entrySet()) {
        if (!m.getKey().equals(victim.key())) {
          assertArrayEquals(
              m.getValue().getBytes(UTF_8), db.get(m.getKey().getBytes(UTF_8)), m.getKey());
        }
      }
      assertTrue(db.recoveryReport().notes().stream().anyMatch(n -> n.contains("salvaged past")));
    }
  }

  @Test
  void bitFlipInKeyIsDetectedOnReplay() throws Exception {
    Path dir = root.resolve("db");
    populate(dir, 300);
    Located victim = records(dir).get(100);
    flipByte(victim.file(), victim.valueOffset() - 1);
    deleteCheckpoints(dir);
    assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, OPTIONS));
  }

  @Test
  void damagedValueBehindACheckpointIsNeverReturned() throws Exception {
    Path dir = root.resolve("db");
    Map<String, String> model = populate(dir, 300);
    Located victim = records(dir).get(42);
    flipByte(victim.file(), victim.valueOffset() + 1);
    try (Cellar db = Cellar.open(dir, OPTIONS)) {
      CorruptStoreException e =
          assertThrows(CorruptStoreException.class, () -> db.get(victim.key().getBytes(UTF_8)));
      assertTrue(e.getMessage().contains("offset " + victim.offset()), e.getMessage());
      String other = victim.key().equals("key1") ? "key2" : "key1";
      assertArrayEquals(model.get(other).getBytes(UTF_8), db.get(other.getBytes(UTF_8)));
    }
  }

  @Test
  void damagedValueOfEverySizeIsNeverReturned() throws Exception {
    // Small records are checked in a per-thread scratch buffer, large ones in a copy of their own:
    // both paths, each damaged at its first, middle and last value byte.
    Path dir = root.resolve("db");
    int[] sizes = {1, 60, 4000, 4096, 5000, 60_000};
    try (Cellar db = Cellar.open(dir, OPTIONS)) {
      for (int size : sizes) {
        byte[] value = new byte[size];
        for (int i = 0; i < size; i++) {
          value[i] = (byte) (i * 31 + size);
        }
        db.put(("big" + size).getBytes(UTF_8), value);
      }
    }
    List<Located> written = records(dir);
    for (int size : sizes) {
      Located victim =
          written.stream().filter(r -> r.key().equals("big" + size)).findFirst().orElseThrow();
      for (long at : java.util.stream.LongStream.of(0, size / 2, size - 1).distinct().toArray()) {
        Path copy = root.resolve("copy-" + size + "-" + at);
        copyDir(dir, copy);
        flipByte(copy.resolve(victim.file().getFileName()), victim.valueOffset() + at);
        try (Cellar db = Cellar.open(copy, OPTIONS)) {
          CorruptStoreException e =
              assertThrows(
                  CorruptStoreException.class,
                  () -> db.get(("big" + size).getBytes(UTF_8)),
                  "value of " + size + " bytes damaged at " + at);
          assertTrue(e.getMessage().contains("offset " + victim.offset()), e.getMessage());
        }
        // With checks off (an option for callers who verify elsewhere), the same read returns the
        // stored bytes, damage included: the check, not the copy, is what refuses them.
        try (Cellar db = Cellar.open(copy, OPTIONS.verifyChecksumsOnRead(false))) {
          byte[] read = db.get(("big" + size).getBytes(UTF_8));
          assertEquals(size, read.length);
          assertEquals((byte) ((at * 31 + size) ^ 0x10), read[(int) at]);
        }
      }
    }
    try (Cellar db = Cellar.open(dir, OPTIONS)) {
      for (int size : sizes) {
        byte[] read = db.get(("big" + size).getBytes(UTF_8));
        assertEquals(size, read.length);
        for (int i = 0; i < size; i++) {
          assertEquals((byte) (i * 31 + size), read[i], "byte " + i + " of " + size);
        }
      }
    }
  }

  @Test
  void bitFlipInSegmentHeaderIsReported() throws Exception {
    Path dir = root.resolve("db");
    populate(dir, 100);
    Path segment = records(dir).getFirst().file();
    flipByte(segment, SegmentHeaderDescriptor.ID_OFFSET + 1);
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, OPTIONS));
    assertTrue(e.getMessage().contains(segment.getFileName() + " offset 0"), e.getMessage());
    assertTrue(e.getMessage().contains("header checksum mismatch"), e.getMessage());
  }

  @Test
  void zeroedPageInTheMiddleIsReportedAndSalvageKeepsTheRest() throws Exception {
    Path dir = root.resolve("db");
    Map<String, String> model = populate(dir, 3000);
    List<Located> recs = records(dir);
    Path segment = recs.getFirst().file();
    long pageStart = 8192;
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(4096), pageStart);
    }
    deleteCheckpoints(dir);
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, OPTIONS));
    assertTrue(e.getMessage().contains(segment.getFileName().toString()), e.getMessage());
    try (Cellar db = Cellar.open(dir, OPTIONS.salvage(true))) {
      int lost = 0;
      for (Located r : recs) {
        byte[] v = db.get(r.key().getBytes(UTF_8));
        boolean inPage =
            r.file().equals(segment)
                && r.offset() + r.length() > pageStart
                && r.offset() < pageStart + 4096;
        if (inPage) {
          assertNull(v, r.key());
          lost++;
        } else {
          assertArrayEquals(model.get(r.key()).getBytes(UTF_8), v, r.key());
        }
      }
      assertTrue(lost > 0 && lost < 100, "lost " + lost);
    }
  }

  @Test
  void segmentFromNewerFormatIsRefusedNamingBothVersions() throws Exception {
    Path dir = root.resolve("db");
    populate(dir, 10);
    Path segment = records(dir).getFirst().file();
    try (FileChannel ch =
        FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer header =
          ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(header, 0);
      header.putShort(SegmentHeaderDescriptor.MAJOR_OFFSET, (short) 9);
      header.putInt(
          SegmentHeaderDescriptor.CRC_OFFSET,
          Crc32c.masked(
              MemorySegment.ofArray(header.array()), 0, SegmentHeaderDescriptor.CRC_OFFSET));
      ch.write(header.flip(), 0);
    }
    IncompatibleFormatException e =
        assertThrows(IncompatibleFormatException.class, () -> Cellar.open(dir, OPTIONS));
    assertTrue(
        e.getMessage().contains("version 9.0") && e.getMessage().contains("version 1.x"),
        e.getMessage());
  }

  @Test
  void storeFromNewerFormatIsRefused() throws Exception {
    Path dir = root.resolve("db");
    populate(dir, 10);
    Path meta = dir.resolve("cellar.meta");
    byte[] raw = Files.readAllBytes(meta);
    ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    b.putShort(8, (short) 2);
    b.putInt(60, Crc32c.masked(MemorySegment.ofArray(raw), 0, 60));
    Files.write(meta, raw);
    IncompatibleFormatException e =
        assertThrows(IncompatibleFormatException.class, () -> Cellar.open(dir, OPTIONS));
    assertTrue(
        e.getMessage().contains("version 2.0") && e.getMessage().contains("1.x"), e.getMessage());
  }

  @Test
  void corruptCheckpointFallsBackToReplay() throws Exception {
    Path dir = root.resolve("db");
    Map<String, String> model = populate(dir, 2000);
    Path checkpoint;
    try (Stream<Path> files = Files.list(dir)) {
      checkpoint =
          files
              .filter(p -> p.getFileName().toString().startsWith("checkpoint-"))
              .findFirst()
              .orElseThrow();
    }
    flipByte(checkpoint, Files.size(checkpoint) / 2);
    try (Store db = Store.open(dir, OPTIONS)) {
      assertTrue(
          db.recoveryReport().notes().stream().anyMatch(n -> n.contains("body checksum mismatch")),
          db.recoveryReport().toString());
      for (var m : model.entrySet()) {
        assertArrayEquals(m.getValue().getBytes(UTF_8), db.get(m.getKey().getBytes(UTF_8)));
      }
    }
  }
}
