package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarOptions;
import dev.cellar.CorruptStoreException;
import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.Fsync;
import dev.cellar.io.FaultInjectingFileIO;
import dev.cellar.log.Crc32c;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the store-file fuzz targets share: a store the engine wrote (its files as bytes, to seed the
 * fuzzer and to build trial directories from), and the check that opening a directory of damaged
 * files is safe.
 *
 * <h2>The property</h2>
 *
 * Opening either succeeds or fails with a {@link CellarException}; when it fails as corrupt,
 * opening with salvage succeeds, as salvage promises. An opened store serves only values that a
 * checksummed record in its files holds ({@link RecordOracle}), reads agree with the scan, and it
 * accepts a write and closes cleanly. Any other exception, or a hang, is a finding.
 */
final class StoreFiles {
  /**
   * Small segments, one shard (a checkpoint of about 12 KB), nothing in the background, and no
   * fsync: thousands of opens a second, and durability is not under test here.
   */
  static final CellarOptions OPTIONS;

  static {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    io.fsyncSkipped = true;
    OPTIONS =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
            .shards(1)
            .maxKeyBytes(1 << 10)
            .maxValueBytes(16 << 10)
            .backgroundCompaction(false)
            .checkpointInterval(Duration.ZERO)
            .fileIO(io);
  }

  /**
   * A fixed {@code cellar.meta} (one shard, a fixed hash seed; docs/format/meta.md), so the index
   * slots in a checkpoint and so the fuzzer's inputs mean the same in every run.
   */
  static final byte[] META = fixedMeta();

  /** 2100-01-01: an expiry that is fixed, so the records are the same in every run, and far off. */
  private static final long FAR_EXPIRY = 4_102_444_800_000L;

  private static final byte[] PROBE_KEY = "fuzz-probe".getBytes(UTF_8);

  /** Recovery reports each open at INFO; thousands of opens a second would bury any finding. */
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger("dev.cellar");

  static {
    QUIET.setLevel(java.util.logging.Level.SEVERE);
  }

  private static StoreFiles template;

  /** File name to contents, as the engine left them after a clean close. */
  final Map<String, byte[]> files;

  private StoreFiles(Map<String, byte[]> files) {
    this.files = files;
  }

  /** The engine's files after writing a few records of every kind and closing. */
  static synchronized StoreFiles template() {
    if (template == null) {
      template = new StoreFiles(write(StoreFiles::populate, true));
    }
    return template;
  }

  static void populate(Cellar db) {
    for (int i = 0; i < 12; i++) {
      db.put(("key" + i).getBytes(UTF_8), ("value-" + i + "-" + "x".repeat(i * 3)).getBytes(UTF_8));
    }
    db.put("key3".getBytes(UTF_8), "overwritten".getBytes(UTF_8));
    db.delete("key5".getBytes(UTF_8));
    db.putWithExpiry("expires".getBytes(UTF_8), "later".getBytes(UTF_8), FAR_EXPIRY);
    db.put("k".getBytes(UTF_8), new byte[0]);
    db.put(new byte[] {0, (byte) 0xff, '\r', '\n'}, new byte[] {'*', '$', 0});
  }

  /**
   * Runs {@code writes} on a fresh store and returns its files: after a clean close, or (with
   * {@code close} false) as a crash would leave them, the last segment unsealed.
   */
  static Map<String, byte[]> write(java.util.function.Consumer<Cellar> writes, boolean close) {
    Path dir = newDirectory();
    try {
      write(dir, Map.of("cellar.meta", META));
      Map<String, byte[]> out = new LinkedHashMap<>();
      Cellar db = Cellar.open(dir, OPTIONS);
      try {
        writes.accept(db);
        db.sync();
        if (!close) {
          out.putAll(read(dir));
        }
      } finally {
        db.close();
      }
      return close ? read(dir) : out;
    } finally {
      delete(dir);
    }
  }

  private static Map<String, byte[]> read(Path dir) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.sorted().toList()) {
        String name = p.getFileName().toString();
        if (!name.equals("LOCK")) {
          out.put(name, Files.readAllBytes(p));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static void write(Path dir, Map<String, byte[]> files) {
    try {
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        Files.write(dir.resolve(f.getKey()), f.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] fixedMeta() {
    ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    b.put("CELLARMT".getBytes(US_ASCII)).putShort((short) 1).putShort((short) 0).putInt(1);
    b.putLong(0x5eed_0000_0000_0001L).putLong(0x5eed_0000_0000_0002L).putLong(FAR_EXPIRY / 2);
    b.putInt(60, Crc32c.masked(MemorySegment.ofArray(b.array()), 0, 60));
    return b.array();
  }

  String segmentName() {
    return files.keySet().stream().filter(n -> n.startsWith("seg-")).findFirst().orElseThrow();
  }

  String checkpointName() {
    return files.keySet().stream()
        .filter(n -> n.startsWith("checkpoint-"))
        .findFirst()
        .orElseThrow();
  }

  // ------------------------------------------------------------ the check

  /**
   * Writes {@code files} to a fresh directory, opens it and checks the property; cleans up.
   *
   * @param forgedIndex whether a checkpoint may carry checksums over slots the engine never wrote:
   *     then a key may be missing from lookups (its slot is not where probing looks) though a scan
   *     of the slots finds it; lookups must still never return another value
   */
  static void checkOpen(Map<String, byte[]> files, boolean forgedIndex) {
    RecordOracle oracle =
        RecordOracle.of(
            files.entrySet().stream()
                .filter(e -> e.getKey().startsWith("seg-"))
                .map(Map.Entry::getValue)
                .toArray(byte[][]::new));
    Path dir = newDirectory();
    try {
      write(dir, files);
      try (Cellar db = Cellar.open(dir, OPTIONS)) {
        checkServes(db, oracle, forgedIndex);
        return;
      } catch (CorruptStoreException e) {
        // Salvage promises to open past any damage: it must.
      } catch (CellarException e) {
        return; // refused, with a reason: the contract
      }
      try (Cellar db = Cellar.open(dir, OPTIONS.salvage(true))) {
        checkServes(db, oracle, forgedIndex);
      }
    } finally {
      delete(dir);
    }
  }

  private static void checkServes(Cellar db, RecordOracle oracle, boolean forgedIndex) {
    try (Cursor cursor = db.scan()) {
      while (cursor.hasNext()) {
        Entry e = cursor.next();
        assertTrue(
            oracle.written(e.key(), e.value()),
            "served a value no checksummed record holds: "
                + Arrays.toString(e.key())
                + " = "
                + Arrays.toString(e.value()));
        byte[] got = db.get(e.key());
        if (!(forgedIndex && got == null)) {
          assertArrayEquals(
              e.value(), got, "get disagrees with scan for " + Arrays.toString(e.key()));
        }
      }
    } catch (CorruptStoreException e) {
      // A read that finds a damaged record refuses it, with file and offset: allowed.
    }
    db.put(PROBE_KEY, PROBE_KEY);
    assertArrayEquals(PROBE_KEY, db.get(PROBE_KEY));
  }

  // ------------------------------------------------------------ directories

  private static Path base;

  private static synchronized Path newDirectory() {
    try {
      if (base == null) {
        base = Files.createTempDirectory("cellar-fuzz");
        base.toFile().deleteOnExit();
      }
      return Files.createTempDirectory(base, "store");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void delete(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
