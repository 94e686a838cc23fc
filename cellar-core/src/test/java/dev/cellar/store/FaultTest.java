package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.DiskFullException;
import dev.cellar.Fsync;
import dev.cellar.StoreIOException;
import dev.cellar.io.FaultInjectingFileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultTest {
  @TempDir Path dir;

  @Test
  void diskFullFailsWritesKeepsReadsAndRecoversWhenSpaceReturns() {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(1 << 20)
            .maxValueBytes(8 << 10)
            .shards(4)
            .fileIO(io);
    int acknowledged = 0;
    try (Cellar db = Cellar.open(dir, options)) {
      byte[] value = new byte[1000];
      io.diskFull = true;
      DiskFullException full = null;
      for (int i = 0; i < 100_000 && full == null; i++) {
        try {
          db.put(("k" + i).getBytes(UTF_8), value);
          acknowledged = i + 1;
        } catch (DiskFullException e) {
          full = e;
        }
      }
      assertNotNull(full, "the disk never filled");
      assertTrue(full.getMessage().contains("disk full"), full.getMessage());
      // Reads go on, and nothing acknowledged is lost.
      for (int i = 0; i < acknowledged; i++) {
        assertNotNull(db.get(("k" + i).getBytes(UTF_8)), "k" + i);
      }
      assertThrows(DiskFullException.class, () -> db.put("more".getBytes(UTF_8), value));
      io.diskFull = false;
      db.put("after".getBytes(UTF_8), "space returned".getBytes(UTF_8));
      assertArrayEquals("space returned".getBytes(UTF_8), db.get("after".getBytes(UTF_8)));
    }
    try (Cellar db = Cellar.open(dir, options.fileIO(new FaultInjectingFileIO()))) {
      for (int i = 0; i < acknowledged; i++) {
        assertNotNull(db.get(("k" + i).getBytes(UTF_8)), "k" + i + " after reopen");
      }
      assertNotNull(db.get("after".getBytes(UTF_8)));
    }
  }

  @Test
  void aCompactionPassThatFailsAfterMovingKeysPointsThemBackAndLeavesNoOutput() throws Exception {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options = StoreTest.small().backgroundCompaction(false).fileIO(io);
    java.util.Map<String, String> model = new java.util.HashMap<>();
    try (Cellar db = Cellar.open(dir, options)) {
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 5000; i++) {
          if (round == 0 || i % 4 != 1) {
            String value = "r" + round + "-" + "y".repeat(200);
            db.put(("k" + i).getBytes(UTF_8), value.getBytes(UTF_8));
            model.put("k" + i, value);
          }
        }
      }
      ((Store) db).maintenance().sealFullSegments();
      // The pass copies and re-points keys, then cannot seal its output.
      io.fsyncFails = true;
      assertThrows(StoreIOException.class, db::compact);
      io.fsyncFails = false;
      assertModel(db, model);
      try (var files = java.nio.file.Files.list(dir)) {
        assertEquals(
            java.util.List.of(), files.filter(p -> p.toString().endsWith(".tmp")).toList());
      }
      assertTrue(db.compact() > 0, "a pass with a working disk reclaims space");
      assertModel(db, model);
    }
    try (Cellar db = Cellar.open(dir, options.fileIO(new FaultInjectingFileIO()))) {
      assertModel(db, model);
    }
  }

  private static void assertModel(Cellar db, java.util.Map<String, String> model) {
    for (var e : model.entrySet()) {
      byte[] value = db.get(e.getKey().getBytes(UTF_8));
      assertNotNull(value, e.getKey());
      assertEquals(e.getValue(), new String(value, UTF_8), e.getKey());
    }
  }

  @Test
  void failedFsyncDisablesWritesButNotReads() {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(1 << 20)
            .maxValueBytes(8 << 10)
            .shards(4)
            .fileIO(io);
    Cellar db = Cellar.open(dir, options);
    db.put("a".getBytes(UTF_8), "1".getBytes(UTF_8));
    io.fsyncFails = true;
    StoreIOException first =
        assertThrows(
            StoreIOException.class, () -> db.put("b".getBytes(UTF_8), "2".getBytes(UTF_8)));
    assertTrue(first.getMessage().contains("fsync failed"), first.getMessage());
    io.fsyncFails = false;
    // No retry-and-pretend: writes stay refused even though fsync would now succeed.
    StoreIOException later =
        assertThrows(
            StoreIOException.class, () -> db.put("c".getBytes(UTF_8), "3".getBytes(UTF_8)));
    assertTrue(later.getMessage().contains("writes are disabled"), later.getMessage());
    assertArrayEquals("1".getBytes(UTF_8), db.get("a".getBytes(UTF_8)));
    // Close releases everything without a checkpoint (nothing is promised past the failure).
    db.close();
    try (Cellar reopened = Cellar.open(dir, options.fileIO(new FaultInjectingFileIO()))) {
      assertArrayEquals("1".getBytes(UTF_8), reopened.get("a".getBytes(UTF_8)));
      reopened.put("c".getBytes(UTF_8), "3".getBytes(UTF_8));
    }
  }

  /**
   * Writers parked behind a group-commit leader whose fsync fails must all be woken and refused:
   * none may hang, and none may be told its write is durable.
   */
  @Test
  void aFailedFsyncRefusesEveryWaitingWriter() throws Exception {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(1 << 20)
            .maxValueBytes(8 << 10)
            .shards(4)
            .fileIO(io);
    try (Cellar db = Cellar.open(dir, options)) {
      int writers = 8;
      java.util.concurrent.CountDownLatch running =
          new java.util.concurrent.CountDownLatch(writers);
      java.util.concurrent.atomic.AtomicLongArray acknowledgedAfterFailure =
          new java.util.concurrent.atomic.AtomicLongArray(writers);
      java.util.concurrent.atomic.AtomicBoolean failing =
          new java.util.concurrent.atomic.AtomicBoolean();
      Thread[] threads = new Thread[writers];
      Throwable[] ended = new Throwable[writers];
      for (int t = 0; t < writers; t++) {
        int id = t;
        threads[t] =
            Thread.ofPlatform()
                .start(
                    () -> {
                      running.countDown();
                      try {
                        for (int i = 0; ; i++) {
                          boolean failedBefore = failing.get();
                          db.put(("w" + id + ":" + i).getBytes(UTF_8), "v".getBytes(UTF_8));
                          if (failedBefore) {
                            acknowledgedAfterFailure.incrementAndGet(id);
                          }
                        }
                      } catch (Throwable e) {
                        ended[id] = e;
                      }
                    });
      }
      running.await();
      Thread.sleep(50);
      // In this order: an fsync that covers a put begun after `failing` was set starts after the
      // fault is on, so that put can only be refused.
      io.fsyncFails = true;
      failing.set(true);
      for (Thread t : threads) {
        t.join(30_000);
        assertFalse(t.isAlive(), "a writer still waits after the fsync failed");
      }
      for (int t = 0; t < writers; t++) {
        assertInstanceOf(StoreIOException.class, ended[t], "writer " + t);
        assertEquals(
            0,
            acknowledgedAfterFailure.get(t),
            "writer " + t + " was acknowledged after fsyncs began to fail");
      }
    }
  }

  /**
   * Under {@code fsync no} no write waits for an fsync, so the first fsync of a full segment is the
   * one that seals it. Its failure must disable writes as group commit's would: sealing again and
   * trusting the next fsync could vouch for pages the kernel dropped.
   */
  @Test
  void aFailedFsyncWhileSealingASegmentDisablesWrites() {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .segmentBytes(1 << 16)
            .maxKeyBytes(64)
            .maxValueBytes(4 << 10)
            .shards(4)
            .backgroundCompaction(false)
            .fileIO(io);
    Store db = (Store) Cellar.open(dir, options);
    try {
      byte[] value = new byte[1000];
      for (int round = 0; round < 20 && db.health().writeFailure() == null; round++) {
        long segments = db.stats().segments();
        for (int i = 0; db.stats().segments() == segments; i++) {
          db.put(
              ("r" + round + "k" + i).getBytes(UTF_8),
              value); // until the log moves to a new segment
        }
        io.fsyncFails =
            true; // the segment just left is full and, unless the agent was quicker, unsealed
        try {
          db.compact(); // seals full segments first
        } catch (StoreIOException expected) {
          // the seal's fsync failed
        }
        io.fsyncFails = false;
      }
      assertNotNull(db.health().writeFailure(), "no seal ever failed");
      StoreIOException refused =
          assertThrows(StoreIOException.class, () -> db.put("after".getBytes(UTF_8), value));
      assertTrue(refused.getMessage().contains("writes are disabled"), refused.getMessage());
      assertArrayEquals(value, db.get("r0k0".getBytes(UTF_8)), "reads go on");
    } finally {
      db.close();
    }
  }
}
