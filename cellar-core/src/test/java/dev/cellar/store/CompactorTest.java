package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarStats;
import dev.cellar.io.FaultInjectingFileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction passes driven one at a time: what a pass reclaims and keeps, a pass that yields
 * leaving no trace, and expired keys taken out and counted.
 */
class CompactorTest {
  @TempDir Path dir;

  private static Map<String, String> overwrite(Cellar db, int keys, int rounds) {
    Map<String, String> model = new HashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < keys; i++) {
        String key = "k" + i;
        String value = "v" + r + "-" + i + "-" + "x".repeat(40);
        db.put(key.getBytes(UTF_8), value.getBytes(UTF_8));
        model.put(key, value);
      }
    }
    return model;
  }

  private List<String> files() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aPassReclaimsDeadRecordsAndKeepsEveryLiveOne() throws Exception {
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false))) {
      Map<String, String> model = overwrite(db, 5_000, 4);
      CellarStats before = db.stats();
      long reclaimed = ((Store) db).maintenance().compactNow();
      // The segments a pass replaced stay on disk until a checkpoint no longer names them.
      db.checkpoint();
      CellarStats after = db.stats();
      assertTrue(reclaimed > 0, "nothing reclaimed: " + before);
      assertTrue(
          after.logBytes() < before.logBytes(), before.logBytes() + " -> " + after.logBytes());
      assertTrue(after.garbageBytes() < before.garbageBytes(), "garbage " + after.garbageBytes());
      assertEquals(before.compactions() + 1, after.compactions());
      StoreTest.assertModel(db, model);
    }
    try (Cellar db = Cellar.open(dir, StoreTest.small())) {
      assertEquals(5_000, db.size(), "the relocated records are what a reopen finds");
    }
  }

  @Test
  void aPassCopiesAreNotCountedAsLiveTwice() throws Exception {
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false))) {
      Map<String, String> model = overwrite(db, 20_000, 4);
      ((Store) db).maintenance().sealFullSegments();
      CellarStats before = db.stats();
      long liveBefore = before.logBytes() - before.garbageBytes();
      long[] most = {0};
      // Asked every 1,024 records copied: the figures maxmemory works from, in the middle of a
      // pass.
      ((Store) db)
          .maintenance()
          .compactInBackground(
              () -> {
                CellarStats now = db.stats();
                most[0] = Math.max(most[0], now.logBytes() - now.garbageBytes());
                return false;
              });
      assertTrue(most[0] > 0, "the pass was observed");
      assertTrue(
          most[0] <= liveBefore + liveBefore / 10,
          "live bytes went from " + liveBefore + " to " + most[0] + " during the pass");
      StoreTest.assertModel(db, model);
    }
  }

  /**
   * The outputs are sealed and renamed before the victims are retired: at the directory fsync
   * between the two, the copies must still not count as live beside their originals. They did, when
   * an output counted once sealed, and {@code maxmemory} answered -OOM under {@code allkeys-random}
   * for a stats sample taken then.
   */
  @Test
  void sealedOutputsAreNotCountedBesideTheirVictims() throws Exception {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false).fileIO(io))) {
      Map<String, String> model = overwrite(db, 20_000, 4);
      ((Store) db).maintenance().sealFullSegments();
      CellarStats before = db.stats();
      long liveBefore = before.logBytes() - before.garbageBytes();
      long[] most = {0};
      int[] seen = {0};
      io.atDirectorySync =
          () -> {
            CellarStats now = db.stats();
            most[0] = Math.max(most[0], now.logBytes() - now.garbageBytes());
            seen[0]++;
          };
      ((Store) db).maintenance().compactInBackground(() -> false);
      io.atDirectorySync = () -> {};
      assertTrue(seen[0] > 0, "the publication was observed");
      assertTrue(
          most[0] <= liveBefore + liveBefore / 10,
          "live bytes went from " + liveBefore + " to " + most[0] + " at the publication");
      StoreTest.assertModel(db, model);
    }
  }

  @Test
  void aPassThatYieldsUndoesItsWork() throws Exception {
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false))) {
      Map<String, String> model = overwrite(db, 5_000, 4);
      ((Store) db).maintenance().sealFullSegments();
      CellarStats before = db.stats();
      List<String> filesBefore = files();
      // Asked to yield from the start: the pass copies a batch, sees the request, and gives up.
      long reclaimed = ((Store) db).maintenance().compactInBackground(() -> true);
      CellarStats after = db.stats();
      assertEquals(0, reclaimed);
      assertEquals(before.compactions(), after.compactions(), "a yield is not a pass");
      assertEquals(before.segments(), after.segments(), "no output segment was published");
      assertEquals(before.logBytes(), after.logBytes());
      assertEquals(filesBefore, files(), "no output file is left behind");
      assertNull(db.health().compactionFailure(), "a yield is not a failure");
      StoreTest.assertModel(db, model);
    }
  }

  @Test
  void expiredKeysAreTakenOutAndCounted() throws Exception {
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false))) {
      long past = System.currentTimeMillis() + 200;
      for (int i = 0; i < 2_000; i++) {
        db.putWithExpiry(("t" + i).getBytes(UTF_8), "short-lived".getBytes(UTF_8), past);
      }
      // Enough overwrites to fill several segments: the expiring keys' one is sealed, a victim.
      Map<String, String> model = overwrite(db, 3_000, 20);
      Thread.sleep(300);
      assertEquals(5_000, db.size(), "expired keys stay in the index until compaction");
      ((Store) db).maintenance().compactNow();
      assertEquals(3_000, db.size());
      assertEquals(2_000, db.stats().expiredKeys());
      StoreTest.assertModel(db, model);
    }
  }
}
