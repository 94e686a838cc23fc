package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.WriteBatch;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child process of {@link AtomicUnitCrashTest}: each thread writes its own group of keys again
 * and again, every version as one {@link Cellar#write(WriteBatch)} (all of the group's keys set to
 * the version, or, every fifth version, all deleted), under {@code always}, with compaction and
 * checkpoints running in a loop, until it is killed.
 *
 * <p>Lines: {@code try <thread> <version>} before a batch, {@code ack <thread> <version>} after it
 * returned.
 */
public final class UnitCrashWriter {
  private UnitCrashWriter() {}

  /** The keys of thread {@code t}'s group. */
  static byte[] key(int t, int k) {
    return ("unit-" + t + "-" + k).getBytes(StandardCharsets.UTF_8);
  }

  /** Whether version {@code v} deletes the group (0, the state before any write, is absent too). */
  static boolean deletes(long v) {
    return v % 5 == 0;
  }

  /** Keys in thread {@code t}'s group: some groups are large enough to cross a segment's end. */
  static int groupSize(int t) {
    return t == 0 ? 64 : 4 + 4 * t;
  }

  /** The value version {@code v} writes under key {@code k}: the version, padded per key. */
  static byte[] value(long v, int k) {
    String head = v + "|";
    return (head + "x".repeat(40 + (k * 37) % 300)).getBytes(StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int threads = Integer.parseInt(args[1]);
    long versionBase = Long.parseLong(args[2]);
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(256 << 10)
            .maxValueBytes(4 << 10)
            .shards(16)
            .compactionGarbageRatio(0.2)
            .checkpointInterval(Duration.ofMillis(50));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    Cellar db = Cellar.open(dir, options);
    say(out, "open");
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              while (true) {
                db.compact();
                db.checkpoint();
              }
            });
    Thread[] writers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers[t] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    WriteBatch batch = new WriteBatch();
                    for (long v = versionBase + 1; ; v++) {
                      batch.clear();
                      for (int k = 0; k < groupSize(id); k++) {
                        if (deletes(v)) {
                          batch.delete(key(id, k));
                        } else {
                          batch.put(key(id, k), value(v, k));
                        }
                      }
                      say(out, "try " + id + " " + v);
                      db.write(batch);
                      say(out, "ack " + id + " " + v);
                    }
                  });
    }
    for (Thread w : writers) {
      w.join();
    }
  }

  private static void say(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }
}
