package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction copies records without the shard lock and abandons the copies whose key changed
 * meanwhile (see {@link Compactor}). Here writer threads overwrite and delete a small key space
 * while passes run, then the store "crashes" (its files are copied as they are, with no close and
 * no checkpoint, which is what a SIGKILL leaves behind) and the copy is reopened: no deleted key
 * may come back and every key must hold its last value, after the replay, after compacting the
 * recovered store, and after a checkpointed reopen of it.
 *
 * <p>Each seed picks where checkpoints fall: none at all (the crash image is replayed in full,
 * compaction outputs with their abandoned copies included, which is where an abandoned copy could
 * resurrect a value), one before the race, or one between passes.
 */
class CompactionRaceCrashTest {
  private static final int SEEDS = 24;
  private static final int WRITERS = 2;

  /** Per writer and seed: the log stays a few MiB, and the passes run as long as the writers. */
  private static final int MAX_OPS = 40_000;

  private static final long PAUSE_NANOS = 200_000;

  @TempDir Path dir;

  @Test
  @Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
  void abandonedCopiesNeverResurrectAnOldValueOrADeletedKey() throws Exception {
    long abandonedUnderFullReplay = 0;
    // The writers are real threads, but on a busy host they rarely run inside the microseconds
    // between a copy and its publication: every batch pauses there for a moment, so they do.
    Compactor.beforePublish = () -> LockSupport.parkNanos(PAUSE_NANOS);
    try {
      for (int seed = 0; seed < SEEDS; seed++) {
        long abandoned = runSeed(seed);
        if (seed % 3 == 0) {
          abandonedUnderFullReplay += abandoned;
        }
      }
    } finally {
      Compactor.beforePublish = null;
    }
    // Without abandoned copies in a log replayed in full the test would prove nothing about them.
    assertTrue(
        abandonedUnderFullReplay > 0,
        "no pass abandoned a copy in the seeds without checkpoints, of " + SEEDS);
  }

  private long runSeed(int seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
    int keys = 2048 << random.nextInt(3);
    int checkpoints = seed % 3;
    Path live = Files.createDirectory(dir.resolve("live-" + seed));
    Path crashed = Files.createDirectory(dir.resolve("crashed-" + seed));
    CellarOptions options =
        StoreTest.small()
            .segmentBytes(128 << 10)
            .maxKeyBytes(256)
            .maxValueBytes(1024)
            .backgroundCompaction(false)
            .checkpointInterval(Duration.ofHours(1));
    Map<String, String> model = new HashMap<>();
    long abandoned;
    try (Cellar db = Cellar.open(live, options)) {
      Store store = (Store) db;
      for (int round = 0; round < 4; round++) {
        for (int k = 0; k < keys; k++) {
          String value = value(seed, -1, round, k, random.nextInt(60));
          db.put(key(k), value.getBytes(UTF_8));
          model.put(name(k), value);
        }
      }
      if (checkpoints == 1) {
        db.checkpoint();
      }
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Map<String, String>> written = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Map<String, String> mine = new HashMap<>();
        written.add(mine);
        int writer = w;
        long writerSeed = random.nextLong();
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        write(db, seed, writer, keys, new SplittableRandom(writerSeed), mine);
                      } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                      }
                    }));
      }
      // Passes for as long as the writers write, so that every pass races them.
      for (int p = 0; threads.stream().anyMatch(Thread::isAlive); p++) {
        store.maintenance().compactNow();
        if (checkpoints == 2 && p == 2) {
          db.checkpoint();
        }
      }
      for (Thread t : threads) {
        t.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("writer failed", failure.get());
      }
      // A writer owns the keys k with k % WRITERS == its number, so its last operation is theirs.
      for (Map<String, String> mine : written) {
        model.putAll(mine);
      }
      model.values().removeIf(v -> v == null);
      abandoned = store.maintenance().abandonedCopies();
      db.sync();
      try (Stream<Path> files = Files.list(live)) {
        for (Path f : files.toList()) {
          Files.copy(f, crashed.resolve(f.getFileName()));
        }
      }
    }
    String where = "seed " + seed + " (" + keys + " keys, checkpoints " + checkpoints + ")";
    try (Cellar db = Cellar.open(crashed, options)) {
      assertModel(db, model, where + ", after the replay");
      for (int p = 0; p < 3; p++) {
        ((Store) db).maintenance().compactNow();
      }
      assertModel(db, model, where + ", after compacting the recovered store");
    }
    try (Cellar db = Cellar.open(crashed, options)) {
      assertModel(db, model, where + ", after a checkpointed reopen");
    }
    return abandoned;
  }

  /** Overwrites (3 in 4) and deletes random keys of its own, MAX_OPS times. */
  private static void write(
      Cellar db,
      int seed,
      int writer,
      int keys,
      SplittableRandom random,
      Map<String, String> mine) {
    for (int op = 0; op < MAX_OPS; op++) {
      int k = random.nextInt(keys / WRITERS) * WRITERS + writer;
      if (random.nextInt(4) == 0) {
        db.delete(key(k));
        mine.put(name(k), null);
      } else {
        String value = value(seed, writer, op, k, random.nextInt(60));
        db.put(key(k), value.getBytes(UTF_8));
        mine.put(name(k), value);
      }
    }
  }

  private static void assertModel(Cellar db, Map<String, String> model, String where) {
    for (int i = 0; i < 8192; i++) {
      int k = i;
      String expected = model.get(name(k));
      byte[] actual = db.get(key(k));
      if (expected == null) {
        assertNull(actual, () -> name(k) + " was deleted but reads " + text(actual) + "; " + where);
      } else {
        assertArrayEquals(expected.getBytes(UTF_8), actual, () -> name(k) + ", " + where);
      }
    }
    assertEquals(model.size(), db.size(), where);
  }

  private static String text(byte[] b) {
    return b == null ? "nothing" : new String(b, UTF_8);
  }

  private static String name(int k) {
    return "key-" + k;
  }

  private static byte[] key(int k) {
    return name(k).getBytes(UTF_8);
  }

  private static String value(int seed, int writer, int op, int k, int padding) {
    return seed + "/" + writer + "/" + op + "/" + k + "/" + "v".repeat(padding);
  }
}
