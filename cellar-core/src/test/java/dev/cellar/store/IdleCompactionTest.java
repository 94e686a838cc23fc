package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.log.Segment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background compaction below {@link CellarOptions#idleCompactionLimit}: a low-priority pass gives
 * way to anything else that needs the maintenance lock, and past the limit the normal-priority
 * maintenance thread compacts. Once writes stop, the low-priority thread compacts once more, at
 * rest.
 */
class IdleCompactionTest {
  @TempDir Path dir;

  /** A log at about 2.5 times its live data, with random overwrites spread over every segment. */
  private static Map<String, String> overgrow(Cellar db, int keys) {
    Map<String, String> model = new HashMap<>();
    Random random = new Random(5);
    for (int i = 0; i < keys; i++) {
      put(db, model, "k" + i, "v0-" + "y".repeat(100));
    }
    for (int round = 1; amplification(db.stats()) < 2.5; round++) {
      put(db, model, "k" + random.nextInt(keys), "v" + round + "-" + "y".repeat(100));
    }
    return model;
  }

  @Test
  void aStalledLowPriorityPassYieldsToACheckpointAndToClose() throws Exception {
    // One byte a second: the pass sleeps in its throttle once it has copied its first MiB, holding
    // the lock. Segments of 8 MiB give a pass several MiB to copy.
    CellarOptions options =
        StoreTest.small()
            .segmentBytes(8 << 20)
            .compactionBytesPerSecond(1)
            .idleCompactionLimit(100);
    Map<String, String> model;
    try (Cellar db = Cellar.open(dir, options)) {
      model = overgrow(db, 100_000);
      Store store = (Store) db;
      for (int i = 0; i < 500 && !store.maintenance().lock().idlePassRunning(); i++) {
        Thread.sleep(20);
      }
      assertTrue(
          store.maintenance().lock().idlePassRunning(),
          "no low-priority pass started at " + amplification(db.stats()) + "x");
      Thread.sleep(500); // well into its throttle
      long passes = db.stats().compactions();
      // Unyielding, the checkpoint would wait for the pass: a megabyte at one byte a second.
      assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(30),
          db::checkpoint,
          "the checkpoint waited behind the pass");
      assertEquals(passes, db.stats().compactions(), "the pass gave up, it did not finish");
      StoreTest.assertModel(db, model);
    }
    assertModelAfterReopen(model);
  }

  @Test
  void pastTheLimitTheMaintenanceThreadCompacts() throws Exception {
    // A limit at the space amplification: every background pass is urgent, none runs at low
    // priority.
    CellarOptions options = StoreTest.small().idleCompactionLimit(2.0);
    try (Cellar db = Cellar.open(dir, options)) {
      Map<String, String> model = overgrow(db, 20_000);
      Store store = (Store) db;
      assertTrue(store.maintenance().compactionUrgent());
      for (int i = 0; i < 500 && db.stats().compactions() == 0; i++) {
        Thread.sleep(20);
      }
      assertTrue(db.stats().compactions() > 0, "no pass ran: " + db.stats());
      StoreTest.assertModel(db, model);
    }
  }

  @Test
  void closeDoesNotWaitOutAThrottledPassOfTheMaintenanceThread() throws Exception {
    // Every pass urgent (on the maintenance thread), and throttled to one byte a second.
    CellarOptions options =
        StoreTest.small()
            .segmentBytes(8 << 20)
            .compactionBytesPerSecond(1)
            .idleCompactionLimit(2.0);
    Map<String, String> model;
    Cellar db = Cellar.open(dir, options);
    model = overgrow(db, 100_000);
    Thread.sleep(1000); // the agent has started its pass and copied its first MiB
    long passes = db.stats().compactions();
    assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(30), db::close, "close waited for the throttled pass");
    assertEquals(passes, db.stats().compactions());
    assertModelAfterReopen(model);
  }

  @Test
  void closeDuringAnExplicitCompactionDoesNotDeadlock() throws Exception {
    // An explicit pass holds the maintenance lock and takes shard locks; close() takes both too.
    // In opposite orders, the two waited for each other (the server: BGREWRITEAOF, then SHUTDOWN).
    for (int attempt = 0; attempt < 20; attempt++) {
      Path store = dir.resolve("s" + attempt);
      Cellar db = Cellar.open(store, StoreTest.small().backgroundCompaction(false));
      overgrow(db, 20_000);
      Thread compaction =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      db.compact();
                    } catch (RuntimeException closed) {
                      // the store closed under the pass: expected
                    }
                  });
      Thread.sleep(attempt % 5);
      assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(30),
          db::close,
          "close deadlocked with compaction, attempt " + attempt);
      compaction.join(30_000);
      assertTrue(!compaction.isAlive(), "the compaction never finished, attempt " + attempt);
    }
  }

  @Test
  void belowTheLimitTheLowPriorityThreadCompactsOnItsOwn() throws Exception {
    try (Cellar db = Cellar.open(dir, StoreTest.small())) {
      Map<String, String> model = overgrow(db, 20_000);
      assertTrue(
          !((Store) db).maintenance().compactionUrgent(), "2.5x is under the default limit of 3");
      for (int i = 0; i < 500 && db.stats().compactions() == 0; i++) {
        Thread.sleep(20);
      }
      assertTrue(db.stats().compactions() > 0, "no pass ran: " + db.stats());
      StoreTest.assertModel(db, model);
    }
  }

  /** {@link StoreTest#small()}'s segments are 1 MiB: garbage worth a pass at rest is 64 KiB. */
  private static final long REST_FLOOR = (1 << 20) / 16;

  @Test
  void aStoreAtRestLeavesItsMostlyDeadActiveSegmentAndCompactsItOnce() throws Exception {
    Map<String, String> model;
    try (Cellar db = Cellar.open(dir, StoreTest.small())) {
      Store store = (Store) db;
      model = overwriteHot(db, store);
      Segment active = activeSegment(store);
      // Background passes cannot take the active segment: only the pass at rest, a second or so
      // after the last write, leaves it and gets its garbage back.
      for (int i = 0; i < 750 && !(active.obsolete() && liveGarbage(store) < REST_FLOOR); i++) {
        Thread.sleep(20);
      }
      assertTrue(active.obsolete(), "the active segment was not left and compacted at rest");
      assertTrue(liveGarbage(store) < REST_FLOOR, "garbage left at rest: " + liveGarbage(store));
      long passes = db.stats().compactions();
      Thread.sleep(2500);
      assertEquals(passes, db.stats().compactions(), "a store at rest was compacted again");
      StoreTest.assertModel(db, model);
    }
    assertModelAfterReopen(model);
  }

  @Test
  void aPassAtRestFindsNothingToDoTwiceOrInALogWithLittleGarbage() throws Exception {
    Map<String, String> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, StoreTest.small().backgroundCompaction(false))) {
      Store store = (Store) db;
      for (int i = 0; i < 2000; i++) {
        put(db, model, "k" + i, "v-" + "y".repeat(100));
      }
      for (int i = 0; i < 100; i++) {
        put(db, model, "k" + i, "w-" + "y".repeat(100)); // 13 KB of garbage
      }
      Segment active = activeSegment(store);
      assertEquals(0, atRest(store));
      assertTrue(!active.obsolete() && activeSegment(store) == active, "left for little garbage");

      model.putAll(overwriteHot(db, store));
      active = activeSegment(store);
      assertTrue(atRest(store) > 0, "nothing reclaimed");
      assertTrue(active.obsolete(), "the mostly dead active segment was not left and compacted");
      assertTrue(liveGarbage(store) < REST_FLOOR, "garbage left: " + liveGarbage(store));
      assertEquals(0, atRest(store), "a second pass reclaimed");
      StoreTest.assertModel(db, model);
    }
    assertModelAfterReopen(model);
  }

  /**
   * Overwrites 200 keys round after round, about 2.5 MiB in all, and stops with at least 256 KiB in
   * the active segment: nearly all of it dead.
   */
  private static Map<String, String> overwriteHot(Cellar db, Store store) {
    Map<String, String> model = new HashMap<>();
    for (int round = 0; ; round++) {
      for (int k = 0; k < 200; k++) {
        put(db, model, "hot" + k, "v" + round + "-" + "y".repeat(100));
      }
      Segment active = activeSegment(store);
      if (round >= 100 && active.end() - active.dataStart() >= 256 << 10) {
        return model;
      }
    }
  }

  /**
   * A pass at rest run to the end: it yields when the maintenance thread, woken by the segment the
   * pass leaves, wants the lock to seal it first.
   */
  private static long atRest(Store store) throws Exception {
    for (int attempt = 0; attempt < 100; attempt++) {
      long reclaimed = store.maintenance().compactAtRest(() -> false);
      if (reclaimed != Compactor.YIELDED) {
        return reclaimed;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the pass at rest yielded a hundred times");
  }

  private static Segment activeSegment(Store store) {
    return store.segmentsForTest().stream()
        .filter(s -> s.state() == Segment.State.ACTIVE)
        .findFirst()
        .orElseThrow();
  }

  /** Garbage in the segments that are not obsolete (those wait only for a checkpoint to go). */
  private static long liveGarbage(Store store) {
    long now = System.currentTimeMillis();
    return store.segmentsForTest().stream()
        .filter(s -> !s.obsolete())
        .mapToLong(s -> s.garbageBytes(now))
        .sum();
  }

  private void assertModelAfterReopen(Map<String, String> model) {
    try (Cellar db = Cellar.open(dir, StoreTest.small())) {
      StoreTest.assertModel(db, model);
    }
  }

  private static void put(Cellar db, Map<String, String> model, String key, String value) {
    db.put(key.getBytes(UTF_8), value.getBytes(UTF_8));
    model.put(key, value);
  }

  private static double amplification(CellarStats stats) {
    return (double) stats.logBytes() / (stats.logBytes() - stats.garbageBytes());
  }
}
