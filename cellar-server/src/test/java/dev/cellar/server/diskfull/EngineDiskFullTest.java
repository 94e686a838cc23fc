package dev.cellar.server.diskfull;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.DiskFullException;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The embedded engine on a real, small file system ({@link SmallFilesystem}) filled up for real:
 * writes fail with {@link DiskFullException} and nothing acknowledged is lost; a checkpoint and a
 * compaction pass attempted with no space left fail cleanly (no leftover files, no damage), and so
 * do the maintenance agent's background attempts, without flooding the log; once space returns,
 * writes, checkpoints and compaction resume by themselves; closing on a full disk succeeds, and a
 * reopen serves everything.
 *
 * <p>Two segment sizes put the failure at the two places the log needs space: 1 MiB segments are
 * reserved whole when created, so the disk fills when a new segment cannot be created (the roll); 8
 * MiB segments are reserved 4 MiB at a time, so it fills within the active segment. Each runs with
 * {@code io buffered} and with {@code io direct}, where the log and compaction's outputs are
 * appended with O_DIRECT.
 */
class EngineDiskFullTest {
  private static final int VALUE_BYTES = 16 << 10;

  @TempDir Path work;
  private SmallFilesystem fs;
  private Cellar db;
  private final Logger engineLog = Logger.getLogger("dev.cellar");
  private final AtomicInteger warnings = new AtomicInteger();
  private final Handler counter =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.incrementAndGet();
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @AfterEach
  void unmount() throws Exception {
    engineLog.removeHandler(counter);
    try {
      if (db != null) {
        db.close();
      }
    } catch (RuntimeException ignored) {
      // the assertion that failed matters more
    } finally {
      if (fs != null) {
        fs.close();
      }
    }
  }

  @ParameterizedTest(name = "segments of {0} bytes, io {1}")
  @CsvSource({"1048576, BUFFERED", "8388608, BUFFERED", "1048576, DIRECT", "8388608, DIRECT"})
  void fullDiskRefusesWritesLosesNothingAndEverythingResumesWhenSpaceReturns(
      int segmentBytes, IoMode io) throws Exception {
    fs = SmallFilesystem.mount(work, 64 << 20, SmallFilesystem.Type.EXT4);
    Path dir = fs.root().resolve("store");
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(segmentBytes)
            .maxValueBytes(64 << 10)
            .shards(4)
            .checkpointInterval(Duration.ofMillis(200))
            .backgroundCompaction(false)
            .compactionGarbageRatio(0.3)
            // io direct under fsync always: the log and compaction's outputs are written with
            // O_DIRECT, whose failures on a full disk come from write(2), not from a mapping.
            .io(io)
            .readCacheBytes(4 << 20);
    db = Cellar.open(dir, options);
    Cellar store = db;
    Path ballast = fs.ballast("ballast", fs.usableBytes() - (12 << 20));

    Map<String, byte[]> acked = new LinkedHashMap<>();
    DiskFullException full = writeUntilFull(acked);
    assertTrue(
        full.getMessage()
            .startsWith("disk full while appending to the log: No space left on device"),
        full.getMessage());
    assertNotNull(store.health().diskFull(), "the store says the disk is full");
    assertAllReadable(acked, "while the disk is full");

    // Refused writes keep refusing, and leave no file, descriptor or mapping behind.
    int openFiles = openFilesUnder(dir);
    for (int i = 0; i < 100; i++) {
      assertThrows(DiskFullException.class, () -> db.put(key("refused"), value("refused", 0)));
    }
    // The agent's checkpoint attempts open a temporary file for a moment, so a descriptor seen once
    // may be in flight; a leaked one stays.
    awaitTrue(
        () -> openFilesUnder(dir) <= openFiles,
        "refused writes leaked descriptors: " + openFiles + " -> " + openFilesUnder(dir));

    // No space at all: a checkpoint and a compaction pass fail cleanly, in the foreground and in
    // the background, where the agent retries its checkpoint every 200 ms unless it backs off.
    Path topUp = fs.fillUp("top-up");
    engineLog.addHandler(counter);
    assertThrows(DiskFullException.class, db::checkpoint);
    assertThrows(DiskFullException.class, db::compact);
    Thread.sleep(2000);
    assertNotNull(store.health().checkpointFailure(), "the agent's checkpoint failed too");
    assertTrue(warnings.get() <= 4, warnings.get() + " warnings logged in 2 s of a full disk");
    awaitTrue(
        () -> temporaryFiles(dir).isEmpty(),
        "failed attempts leave nothing behind: " + temporaryFiles(dir));
    assertAllReadable(acked, "after failed checkpoints and compactions");

    // Space returns: the store notices without a write, and everything resumes by itself.
    Files.delete(topUp);
    Files.delete(ballast);
    awaitTrue(
        () -> store.health().diskFull() == null, "the space probe clears the disk-full state");
    for (int i = 0; i < 50; i++) {
      put("after" + i, 2, acked);
    }
    awaitTrue(
        () -> store.health().checkpointFailure() == null, "the agent's checkpoint succeeds again");
    assertTrue(db.compact() > 0, "compaction reclaims the garbage once it has room for its output");
    awaitTrue(
        () -> temporaryFiles(dir).isEmpty(), "no temporary file stays: " + temporaryFiles(dir));
    assertAllReadable(acked, "after space returned");

    // Closing on a full disk: everything is synced; a checkpoint that finds no room is skipped.
    Path again = fs.fillUp("again");
    db.close();
    Files.delete(again);

    db = Cellar.open(dir, options);
    assertAllReadable(acked, "after reopening");
    assertEquals(acked.size(), db.size());
  }

  /**
   * Each step writes a new key and rewrites the previous one, so segments hold garbage to compact.
   */
  private DiskFullException writeUntilFull(Map<String, byte[]> acked) {
    for (int i = 0; i < 20_000; i++) {
      try {
        put("k" + i, 0, acked);
        if (i > 0) {
          put("k" + (i - 1), 1, acked);
        }
      } catch (DiskFullException e) {
        return e;
      }
    }
    return fail("the disk never filled");
  }

  private void put(String name, int version, Map<String, byte[]> acked) {
    byte[] value = value(name, version);
    db.put(key(name), value);
    acked.put(name, value);
  }

  private void assertAllReadable(Map<String, byte[]> acked, String when) {
    for (Map.Entry<String, byte[]> e : acked.entrySet()) {
      assertArrayEquals(e.getValue(), db.get(key(e.getKey())), e.getKey() + " " + when);
    }
  }

  private static byte[] key(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(String name, int version) {
    byte[] value = new byte[VALUE_BYTES];
    Arrays.fill(value, (byte) (name.hashCode() * 31 + version));
    byte[] label = (name + "#" + version).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(label, 0, value, 0, label.length);
    return value;
  }

  /** Descriptors of this process open on files under {@code dir}. */
  private static int openFilesUnder(Path dir) {
    int n = 0;
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(dir)) {
            n++;
          }
        } catch (IOException closedMeanwhile) {
          // the listing's own descriptor, or one closed since
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return n;
  }

  /** Temporary files in {@code dir}: the agent's checkpoint in progress, or one a failure left. */
  private static List<String> temporaryFiles(Path dir) {
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".tmp"))
          .forEach(names::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return names;
  }

  private static void awaitTrue(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not within 60 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
