package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The child process of the crash tests: writes under {@code always} from several threads and prints
 * a line for every acknowledged write, until it is killed. Optionally runs compaction and
 * checkpoints in a loop so that kills land inside them.
 *
 * <p>Line format: {@code try <thread> <key> <version> <put|del>} before each operation and {@code
 * ack <thread> <key> <version> <put|del>} after it returned; {@code compaction begins} and {@code
 * compaction ends <bytes reclaimed>} around each compaction pass, so the parent knows whether a
 * kill landed inside one. Versions start at a base given by the parent, so they grow across
 * restarts. Values are {@code <key>=<version>|} and a padding that follows from both ({@link
 * #value}), so a reader can tell the exact value each version wrote.
 */
public final class CrashWriter {
  static final int KEYS_PER_THREAD = 300;

  private CrashWriter() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int threads = Integer.parseInt(args[1]);
    boolean maintenance = Boolean.parseBoolean(args[2]);
    long versionBase = Long.parseLong(args[3]);
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(256 << 10)
            .maxValueBytes(4 << 10)
            .shards(16)
            .compactionGarbageRatio(0.2)
            .checkpointInterval(Duration.ofMillis(maintenance ? 50 : 0))
            .encryptionKeys(
                args.length > 4 && !args[4].isEmpty()
                    ? EncryptionKeys.of(java.util.HexFormat.of().parseHex(args[4]))
                    : null)
            .compression(args.length > 5 ? Compression.valueOf(args[5]) : Compression.NONE)
            .io(args.length > 6 ? IoMode.valueOf(args[6]) : IoMode.BUFFERED)
            .readCacheBytes(8 << 20);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    Cellar db = Cellar.open(dir, options);
    out.println("open");
    out.flush();
    if (maintenance) {
      Thread churn =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (true) {
                      say(out, "compaction begins");
                      long reclaimed = db.compact();
                      say(out, "compaction ends " + reclaimed);
                      db.checkpoint();
                    }
                  });
    }
    Thread[] writers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers[t] = Thread.ofPlatform().start(() -> write(db, id, versionBase, out));
    }
    for (Thread w : writers) {
      w.join();
    }
  }

  private static void write(Cellar db, int thread, long versionBase, PrintStream out) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (long version = versionBase + 1; ; version++) {
      String key = "t" + thread + ":k" + random.nextInt(KEYS_PER_THREAD);
      boolean delete = random.nextInt(10) == 0;
      String op = " " + thread + " " + key + " " + version + (delete ? " del" : " put");
      synchronized (out) {
        out.println("try" + op);
        out.flush();
      }
      if (delete) {
        db.delete(key.getBytes(StandardCharsets.UTF_8));
      } else {
        db.put(key.getBytes(StandardCharsets.UTF_8), value(key, version));
      }
      synchronized (out) {
        out.println("ack" + op);
        out.flush();
      }
    }
  }

  /**
   * The value of {@code key} at {@code version}; its padding (0 to 199 bytes) follows from both, so
   * the parent knows every byte of it.
   */
  private static void say(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  static byte[] value(String key, long version) {
    int padding = Math.floorMod(key.hashCode() * 31 + Long.hashCode(version), 200);
    return (key + "=" + version + "|" + "p".repeat(padding)).getBytes(StandardCharsets.UTF_8);
  }
}
