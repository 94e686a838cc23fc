package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.StoreIOException;
import dev.cellar.StoreSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Cellar#snapshot}: taken while writers, compaction and checkpoints run, a snapshot opens as
 * a store holding a prefix of every writer's history (each writer's keys up to some version and
 * none after), and it stays so after the store moves on and deletes the files it linked.
 */
class SnapshotTest {
  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(64 << 10)
        .maxKeyBytes(256)
        .maxValueBytes(4 << 10)
        .shards(4)
        .compactionGarbageRatio(0.2)
        .checkpointInterval(Duration.ofMillis(20));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aSnapshotTakenUnderLoadIsOneInstantOfTheStore() throws Exception {
    runUnderLoad(options());
  }

  @Test
  void anEncryptedStoresSnapshotIsEncryptedAndOpensWithItsKey() throws Exception {
    byte[] key = new byte[32];
    key[0] = 7;
    runUnderLoad(options().encryptionKeys(EncryptionKeys.of(key)));
  }

  /**
   * Two writers: each writes its counter to its own key ({@code w<i>:last}) after writing {@code
   * w<i>:<n>} for n = counter, so in any instant's image, {@code w<i>:last} = L means keys 0..L
   * exist (older ones are overwritten in a cycle of 50 slots with their number).
   */
  private void runUnderLoad(CellarOptions options) throws Exception {
    Path store = dir.resolve("store");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong[] written = {new AtomicLong(), new AtomicLong()};
    long[] before = new long[4];
    long[] after = new long[4];
    try (Cellar db = Cellar.open(store, options)) {
      Thread[] writers = new Thread[2];
      for (int w = 0; w < 2; w++) {
        int id = w;
        writers[w] =
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (long n = 1; !stop.get(); n++) {
                        if (n % 64 == 0) {
                          // Slow enough for compaction to keep up with 64 KiB segments.
                          java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                        }
                        db.put(
                            utf8("w" + id + ":" + (n % 50)), utf8("v" + n + "-" + "x".repeat(200)));
                        db.put(utf8("w" + id + ":last"), utf8(Long.toString(n)));
                        written[id].set(n);
                      }
                    });
      }
      Thread compactor =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      db.compact();
                    }
                  });
      for (int s = 0; s < 4; s++) {
        Thread.sleep(150);
        before[s] = written[0].get();
        StoreSnapshot snapshot = db.snapshot(dir.resolve("snap" + s));
        after[s] = written[0].get() + 1; // "last" may be written, the counter not yet
        assertTrue(snapshot.files().contains("cellar.meta"), snapshot.toString());
        assertTrue(snapshot.linkedBytes() > 0, snapshot.toString());
      }
      stop.set(true);
      for (Thread t : writers) {
        t.join();
      }
      compactor.join();
      assertTrue(written[0].get() > 1000, "writers wrote " + written[0] + ", " + written[1]);
      db.compact();
      db.checkpoint(); // deletes the store's names for files the snapshots linked
    }
    for (int s = 0; s < 4; s++) {
      try (Cellar snap = Cellar.open(dir.resolve("snap" + s), options)) {
        for (int w = 0; w < 2; w++) {
          byte[] last = snap.get(utf8("w" + w + ":last"));
          assertNotNull(last, "snapshot " + s + " writer " + w);
          long seen = Long.parseLong(new String(last, StandardCharsets.UTF_8));
          if (w == 0) {
            // The instant lies within the call: nothing the store did after it reached the files.
            assertTrue(
                before[s] <= seen && seen <= after[s],
                "snapshot "
                    + s
                    + " holds last "
                    + seen
                    + ", taken between "
                    + before[s]
                    + " and "
                    + after[s]);
          }
          long l = Long.parseLong(new String(last, StandardCharsets.UTF_8));
          // The writer wrote key l % 50 with value l before "last" = l, and has not yet written
          // "last" = l + 1, so key (l + 1) % 50 may hold l + 1 (written, last not yet) but nothing
          // later; every other slot holds the latest n <= l with that remainder.
          for (long n = Math.max(1, l - 48); n <= l; n++) {
            byte[] v = snap.get(utf8("w" + w + ":" + (n % 50)));
            assertNotNull(v, "snapshot " + s + " w" + w + " n " + n);
            assertEquals(
                "v" + n + "-",
                new String(v, StandardCharsets.UTF_8).substring(0, ("v" + n + "-").length()),
                "snapshot " + s + " w" + w + " slot " + (n % 50) + " with last " + l);
          }
        }
      }
    }
  }

  @Test
  void refusesADirectoryThatIsNotEmpty() throws Exception {
    Path target = Files.createDirectories(dir.resolve("busy"));
    Files.writeString(target.resolve("something"), "x");
    try (Cellar db = Cellar.open(dir.resolve("store"), options())) {
      db.put(utf8("k"), utf8("v"));
      StoreIOException e = assertThrows(StoreIOException.class, () -> db.snapshot(target));
      assertTrue(e.getMessage().contains("empty"), e.getMessage());
      StoreSnapshot ok = db.snapshot(dir.resolve("fresh"));
      assertEquals(dir.resolve("fresh"), ok.directory());
    }
    try (Cellar snap = Cellar.open(dir.resolve("fresh"), options())) {
      assertArrayEquals(utf8("v"), snap.get(utf8("k")));
    }
  }
}
