package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Fsync;
import dev.cellar.ScanPage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SCAN's guarantee while the store changes under the scan: a writer inserts and deletes keys (the
 * index of each shard doubles three times during the first iteration, so pages run during
 * migrations and across table sizes) and overwrites the keys that stay, while another thread
 * compacts (moving records) and checkpoints (which unmaps the segments compaction replaced). Each
 * full iteration must return every key present throughout exactly once, never a key deleted before
 * it began, and nothing that was never written.
 *
 * <p>The writer does not stop at a fixed count: after its churn it goes on rewriting keys already
 * written (which leaves garbage for compaction) until the scanner has seen an iteration overlap
 * both index growth and a compaction, so the test does not depend on how fast this machine runs.
 */
class ScanConcurrencyTest {
  static final int STABLE = 2000;
  static final int GONE = 500;
  static final int CHURN = 24_000;

  @TempDir Path dir;

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(64 << 10)
        .maxKeyBytes(1024)
        .maxValueBytes(4 << 10)
        .shards(2)
        .compactionGarbageRatio(0.3)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 10, 100})
  void everyKeyPresentThroughoutIsReturnedOnce(int count) throws Exception {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int i = 0; i < STABLE; i++) {
        db.put(b("stable:" + i), b("v0"));
      }
      for (int i = 0; i < GONE; i++) {
        db.put(b("gone:" + i), b("v"));
        db.delete(b("gone:" + i));
      }
      AtomicLong pages = new AtomicLong();
      AtomicBoolean overlapsSeen = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer = start("writer", failure, () -> write(db, pages, count, overlapsSeen));
      Thread maintainer =
          start(
              "maintainer",
              failure,
              () -> {
                for (int pass = 0; writer.isAlive(); pass++) {
                  db.compact();
                  if (pass % 4 == 0) {
                    db.checkpoint();
                  }
                  Thread.sleep(1);
                }
              });
      int iterations = 0;
      boolean sawGrowth = false;
      boolean sawCompaction = false;
      boolean writerWasDone;
      do {
        writerWasDone = !writer.isAlive();
        CellarStats before = db.stats();
        iterate(db, count, pages);
        CellarStats after = db.stats();
        sawGrowth |= after.indexBytes() != before.indexBytes();
        sawCompaction |= after.compactions() != before.compactions();
        overlapsSeen.set(sawGrowth && sawCompaction);
        iterations++;
      } while (!writerWasDone && failure.get() == null);
      writer.join();
      maintainer.join();
      if (failure.get() != null) {
        fail("background thread failed", failure.get());
      }
      assertTrue(sawGrowth, "no iteration overlapped index growth");
      assertTrue(sawCompaction, "no iteration overlapped compaction");
      assertTrue(iterations >= 2);
    }
  }

  /**
   * Inserts churn keys, deletes some, overwrites stable ones; keeps about 2 * count ops per page.
   * After the churn it rewrites written keys until the scanner has seen both overlaps.
   */
  private static void write(Cellar db, AtomicLong pages, int count, AtomicBoolean overlapsSeen)
      throws InterruptedException {
    Random random = new Random(count);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (int i = 0; i < CHURN || !overlapsSeen.get(); i++) {
      while (pages.get() < i / (2L * count)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the scanner stopped making progress");
        }
        Thread.sleep(0, 100_000);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no scan overlapped both index growth and a compaction in 60 s");
      }
      int key = i < CHURN ? i : random.nextInt(CHURN);
      db.put(b("churn:" + key), b("value " + i + " " + "x".repeat(random.nextInt(200))));
      if (i % 3 == 2) {
        db.delete(b("churn:" + random.nextInt(Math.min(i, CHURN))));
      }
      if (i % 4 == 0) {
        db.put(b("stable:" + random.nextInt(STABLE)), b("v" + i + "x".repeat(random.nextInt(200))));
      }
    }
  }

  private static void iterate(Cellar db, int count, AtomicLong pages) {
    Set<String> seen = new HashSet<>();
    long cursor = ScanPage.START;
    do {
      ScanPage page = db.scanPage(cursor, b(""), count);
      for (byte[] bytes : page.keys()) {
        String key = new String(bytes, UTF_8);
        assertTrue(seen.add(key), "returned twice: " + key);
        assertTrue(written(key), "never written: " + key);
      }
      cursor = page.nextCursor();
      if (pages.incrementAndGet() % 64 == 0) {
        byte[] random = db.randomKey();
        assertNotNull(random);
        assertTrue(written(new String(random, UTF_8)));
      }
    } while (cursor != ScanPage.START);
    for (int i = 0; i < STABLE; i++) {
      assertTrue(seen.contains("stable:" + i), "missed stable:" + i);
    }
    assertNull(seen.stream().filter(k -> k.startsWith("gone:")).findAny().orElse(null));
  }

  private static boolean written(String key) {
    int colon = key.indexOf(':');
    int n = Integer.parseInt(key.substring(colon + 1));
    return switch (key.substring(0, colon)) {
      case "stable" -> n < STABLE;
      case "churn" -> n < CHURN;
      default -> false;
    };
  }

  interface Body {
    void run() throws Exception;
  }

  private static Thread start(String name, AtomicReference<Throwable> failure, Body body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            },
            name);
    t.start();
    return t;
  }
}
