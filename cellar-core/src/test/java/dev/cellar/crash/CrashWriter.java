package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
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
 * ack <thread> <key> <version> <put|del>} after it returned. Versions start at a base given by the
 * parent, so they grow across restarts. Values are {@code <key>=<version>} padded, so a reader can
 * tell a well-formed value from a corrupt one.
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
                    : null);
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
                      db.compact();
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
        db.put(key.getBytes(StandardCharsets.UTF_8), value(key, version, random.nextInt(200)));
      }
      synchronized (out) {
        out.println("ack" + op);
        out.flush();
      }
    }
  }

  static byte[] value(String key, long version, int padding) {
    return (key + "=" + version + "|" + "p".repeat(padding)).getBytes(StandardCharsets.UTF_8);
  }
}
