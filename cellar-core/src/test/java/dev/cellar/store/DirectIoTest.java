package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.cache.BlockCache;
import dev.cellar.io.DirectReader;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that reads with O_DIRECT through its read cache: every read path returns what was
 * written, from sealed segments read through a cache far smaller than the data, with encryption and
 * compression on top, across compaction and reopening; and a store that cannot read directly says
 * so at open.
 */
class DirectIoTest {
  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(256 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(64 << 10)
        .shards(4)
        .checkpointInterval(Duration.ZERO)
        .backgroundCompaction(false)
        .io(IoMode.DIRECT)
        .readCacheBytes(1 << 20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "encrypted", "compressed", "encrypted+compressed"})
  void everyReadPathReturnsWhatWasWritten(String kind) throws Exception {
    CellarOptions options = options();
    if (kind.contains("encrypted")) {
      byte[] key = new byte[32];
      new SplittableRandom(5).nextBytes(key);
      options = options.encryptionKeys(EncryptionKeys.of(key));
    }
    if (kind.contains("compressed")) {
      options = options.compression(Compression.LZ4);
    }
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2500; i++) {
          if ((i + round) % 9 == 0) {
            db.delete(CompressionTest.key(i));
            model.remove(i);
          } else {
            model.put(i, CompressionTest.document(i, round));
            db.put(CompressionTest.key(i), model.get(i));
          }
        }
        CompressionTest.compactFully(db);
        CompressionTest.check(db, model);
      }
      BlockCache cache = ((Store) db).readCache();
      // About 7 MB of records over a 1 MiB cache: sealed segments were read through it.
      assertTrue(cache.misses() > 1000, "cache misses " + cache.misses());
      assertTrue(cache.hits() > 0, "cache hits " + cache.hits());
      db.checkpoint();
    }
    try (Cellar db = Cellar.open(dir, options)) {
      CompressionTest.check(db, model);
      assertNull(db.get(CompressionTest.key(7))); // deleted in the last round
    }
    // The files are the same files: a buffered open reads them too.
    try (Cellar db = Cellar.open(dir, options.io(IoMode.BUFFERED))) {
      CompressionTest.check(db, model);
    }
  }

  /**
   * A batch read's misses are read ahead, all at once, by each kind of batch reader; the values are
   * those written, whether the batch's records fit one block or cross into the next.
   */
  @ParameterizedTest
  @ValueSource(strings = {"uring", "pool", "serial"})
  void batchReadsReadTheirMissesAheadAndReturnWhatWasWritten(String reader) throws Exception {
    Map<Integer, byte[]> model = new HashMap<>();
    CellarOptions options = options();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int i = 0; i < 3000; i++) {
        // 100 to 6,000 bytes: records that fit a block, and records that span two or three
        byte[] value = CompressionTest.document(i, 0);
        byte[] longer = new byte[100 + (i * 7919) % 5900];
        for (int j = 0; j < longer.length; j++) {
          longer[j] = value[j % value.length];
        }
        model.put(i, longer);
        db.put(CompressionTest.key(i), longer);
      }
      db.checkpoint();
    }
    String before = System.getProperty("cellar.io.batchReads");
    System.setProperty("cellar.io.batchReads", reader);
    try (Cellar db = Cellar.open(dir, options)) {
      String name = ((Store) db).blockReads().name();
      switch (reader) {
        case "uring" -> {
          try (var probe = dev.cellar.platform.UringBlockReads.open()) {
            // io_uring where the kernel allows it; the pool where it does not
            assertEquals(probe != null ? "io_uring" : "pool of 16", name);
          }
        }
        case "pool" -> assertEquals("pool of 16", name);
        default -> assertEquals("serial", name);
      }
      SplittableRandom random = new SplittableRandom(11);
      for (int round = 0; round < 40; round++) {
        byte[][] keys = new byte[48][];
        int[] ids = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
          ids[i] = random.nextInt(3100); // a few absent keys among them
          keys[i] = CompressionTest.key(ids[i]);
        }
        byte[][] values = db.getAll(keys);
        for (int i = 0; i < keys.length; i++) {
          assertArrayEquals(model.get(ids[i]), values[i], "key " + ids[i]);
        }
      }
      BlockCache cache = ((Store) db).readCache();
      assertTrue(cache.readAhead() > 500, "blocks read ahead " + cache.readAhead());
      // Read ahead, the batch's own reads found their blocks: almost every miss was read ahead.
      assertTrue(
          cache.misses() - cache.readAhead() < cache.readAhead() / 10,
          "misses " + cache.misses() + ", read ahead " + cache.readAhead());
    } finally {
      if (before == null) {
        System.clearProperty("cellar.io.batchReads");
      } else {
        System.setProperty("cellar.io.batchReads", before);
      }
    }
  }

  @Test
  void overwritesOfColdKeysAccountTheirGarbage() throws Exception {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < 3000; i++) {
        db.put(CompressionTest.key(i), CompressionTest.document(i, 0));
      }
      for (int i = 0; i < 3000; i++) {
        db.put(CompressionTest.key(i), CompressionTest.document(i, 1));
      }
      // Every first version is garbage in a sealed segment read with O_DIRECT: compaction finds
      // it by the accounting of the overwrites, and frees it.
      long reclaimed = db.compact();
      assertTrue(reclaimed > 0, "reclaimed " + reclaimed);
      for (int i = 0; i < 3000; i++) {
        assertArrayEquals(CompressionTest.document(i, 1), db.get(CompressionTest.key(i)));
      }
    }
  }

  /** The platform's file system, with every O_DIRECT read of 64 KiB or more counted. */
  static FileIO countingLargeReads(java.util.concurrent.atomic.AtomicLong largeReadBytes) {
    return countingLargeReads(largeReadBytes, new java.util.concurrent.atomic.AtomicBoolean());
  }

  /** As above; while {@code failLarge} is set, every large read fails as a device error would. */
  private static FileIO countingLargeReads(
      java.util.concurrent.atomic.AtomicLong largeReadBytes,
      java.util.concurrent.atomic.AtomicBoolean failLarge) {
    return withDirectReads(
        path -> {
          DirectReader direct = FileIO.platform().openDirect(path);
          return new DirectReader() {
            @Override
            public long read(long position, java.lang.foreign.MemorySegment into)
                throws IOException {
              if (into.byteSize() >= 64 << 10 && failLarge.get()) {
                throw new IOException("EIO (injected) reading " + path.getFileName());
              }
              long n = direct.read(position, into);
              if (into.byteSize() >= 64 << 10) {
                largeReadBytes.addAndGet(n);
              }
              return n;
            }

            @Override
            public void dropPageCache(java.lang.foreign.MemorySegment mapping) {
              direct.dropPageCache(mapping);
            }

            @Override
            public void close() {
              direct.close();
            }
          };
        });
  }

  /** Opens a file for direct reads. */
  private interface DirectOpener {
    DirectReader open(Path path) throws IOException;
  }

  /** The platform's file system, its direct reads opened by {@code opener}. */
  private static FileIO withDirectReads(DirectOpener opener) {
    return new FileIO() {
      private final FileIO platform = FileIO.platform();

      @Override
      public StoreFile open(Path path, boolean create) throws IOException {
        return platform.open(path, create);
      }

      @Override
      public StoreFile openReadOnly(Path path) throws IOException {
        return platform.openReadOnly(path);
      }

      @Override
      public void rename(Path source, Path target) throws IOException {
        platform.rename(source, target);
      }

      @Override
      public void delete(Path path) throws IOException {
        platform.delete(path);
      }

      @Override
      public void syncDirectory(Path directory) throws IOException {
        platform.syncDirectory(directory);
      }

      @Override
      public List<Path> list(Path directory) throws IOException {
        return platform.list(directory);
      }

      @Override
      public void createDirectories(Path directory) throws IOException {
        platform.createDirectories(directory);
      }

      @Override
      public DirectReader openDirect(Path path) throws IOException {
        return opener.open(path);
      }
    };
  }

  /**
   * Compaction reads its victims with O_DIRECT in large sequential requests (not through their
   * mappings), whole, encrypted and compressed alike, and the copies read back as written.
   */
  @ParameterizedTest
  @ValueSource(strings = {"plain", "encrypted+compressed"})
  void compactionScansItsVictimsWithLargeDirectReads(String kind) throws Exception {
    java.util.concurrent.atomic.AtomicLong largeReads =
        new java.util.concurrent.atomic.AtomicLong();
    CellarOptions options = options().fileIO(countingLargeReads(largeReads));
    if (kind.contains("encrypted")) {
      byte[] key = new byte[32];
      new SplittableRandom(9).nextBytes(key);
      options = options.encryptionKeys(EncryptionKeys.of(key)).compression(Compression.ZSTD);
    }
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int version = 0; version < 2; version++) {
        for (int i = 0; i < 3000; i++) {
          model.put(i, CompressionTest.document(i, version));
          db.put(CompressionTest.key(i), model.get(i));
        }
      }
      long sealedBytes = db.stats().logBytes();
      assertEquals(0, largeReads.get(), "no scan yet");
      assertTrue(db.compact() > 0);
      // Every victim was read whole (the first versions are all garbage, the second half live).
      assertTrue(
          largeReads.get() > sealedBytes / 3,
          "bytes read in large O_DIRECT requests: " + largeReads.get() + " of " + sealedBytes);
      CompressionTest.check(db, model);
    }
    try (Cellar db = Cellar.open(dir, options)) {
      CompressionTest.check(db, model);
    }
  }

  /**
   * A change stream reads sealed segments with O_DIRECT in large requests, in batches of a few MiB,
   * and delivers every change in order, whether it starts at the beginning of the log or in the
   * middle of a sealed segment.
   */
  @Test
  void aChangeStreamReadsSealedSegmentsWithLargeDirectReads() throws Exception {
    java.util.concurrent.atomic.AtomicLong largeReads =
        new java.util.concurrent.atomic.AtomicLong();
    CellarOptions options = options().fileIO(countingLargeReads(largeReads));
    try (Cellar db = Cellar.open(dir, options)) {
      List<byte[]> written = new java.util.ArrayList<>();
      for (int version = 0; version < 2; version++) {
        for (int i = 0; i < 3000; i++) {
          written.add(CompressionTest.document(i, version));
          db.put(CompressionTest.key(i), written.getLast());
        }
      }
      for (long from : new long[] {0, 1234}) {
        long before = largeReads.get();
        long seq = Math.max(1, from);
        try (dev.cellar.ChangeStream stream = db.changes(from)) {
          while (seq <= written.size()) {
            dev.cellar.ChangeBatch batch = stream.poll(Duration.ofSeconds(5));
            boolean any = false;
            while (batch.next()) {
              any = true;
              assertEquals(seq, batch.seq());
              assertArrayEquals(
                  written.get((int) seq - 1),
                  batch.value().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                  "change " + seq);
              seq++;
            }
            assertTrue(any, "no change at " + seq);
          }
        }
        assertEquals(written.size() + 1, seq);
        // The sealed segments (all but the last of some 7 MB) were read in large O_DIRECT requests.
        assertTrue(
            largeReads.get() - before > 4 << 20, "large reads " + (largeReads.get() - before));
      }
    }
  }

  /** A device error in a compaction scan fails the pass, and the store loses nothing. */
  @Test
  void aFailedScanReadFailsThePassAndLosesNothing() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean fail =
        new java.util.concurrent.atomic.AtomicBoolean();
    CellarOptions options =
        options().fileIO(countingLargeReads(new java.util.concurrent.atomic.AtomicLong(), fail));
    Map<Integer, byte[]> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int version = 0; version < 2; version++) {
        for (int i = 0; i < 3000; i++) {
          model.put(i, CompressionTest.document(i, version));
          db.put(CompressionTest.key(i), model.get(i));
        }
      }
      fail.set(true);
      RuntimeException failed = assertThrows(RuntimeException.class, db::compact);
      assertTrue(
          String.valueOf(failed.getMessage()).contains("EIO (injected)")
              || String.valueOf(failed.getCause()).contains("EIO (injected)"),
          failed.toString());
      CompressionTest.check(db, model);
      fail.set(false);
      assertTrue(db.compact() > 0); // the next pass, with the device back, does the work
      CompressionTest.check(db, model);
    }
    try (Cellar db = Cellar.open(dir, options)) {
      CompressionTest.check(db, model);
    }
  }

  @Test
  void aFileSystemThatRefusesDirectReadsIsRefusedAtOpen() {
    // Some file systems refuse O_DIRECT (tmpfs before Linux 6.6, some FUSE ones): as the platform
    // reports it, an IOException from the open.
    FileIO refusing =
        withDirectReads(
            path -> {
              throw new IOException("cannot open " + path + " with O_DIRECT: errno 22");
            });
    IllegalArgumentException refused =
        assertThrows(
            IllegalArgumentException.class, () -> Cellar.open(dir, options().fileIO(refusing)));
    assertTrue(refused.getMessage().contains("io direct"), refused.getMessage());
    assertTrue(refused.getMessage().contains("errno 22"), refused.getMessage());
    assertTrue(refused.getMessage().contains("use io buffered"), refused.getMessage());
    try (Cellar db = Cellar.open(dir, options().fileIO(refusing).io(IoMode.BUFFERED))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(1, db.size());
    }
  }
}
