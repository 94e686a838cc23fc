package dev.cellar.server;

import dev.cellar.Cellar;
import dev.cellar.StoreSnapshot;
import dev.cellar.backup.Backup;
import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Location;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.Map;

/**
 * {@code BGSAVE} with a {@code backup-target}: a backup of the running store to object storage, the
 * same backup {@code cellar tool backup} makes of a stopped one (docs/backup.md).
 *
 * <p>The store is not stopped: {@link Cellar#snapshot} writes a consistent image of it into {@link
 * #SNAPSHOT_DIRECTORY} inside the data directory (hard links to the files that no longer change,
 * copies of the log's tail), the backup uploads that directory, and the directory is deleted.
 * Inside the data directory because links need the same file system; the engine ignores a
 * subdirectory, and one left by a crash is deleted when the server starts again.
 */
final class BackgroundSave {
  static final String SNAPSHOT_DIRECTORY = "bgsave.snapshot";

  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final Cellar store;
  private final Path dataDirectory;
  private final String target;
  private final Map<String, String> environment;

  BackgroundSave(Cellar store, Path dataDirectory, String target, Map<String, String> environment) {
    this.store = store;
    this.dataDirectory = dataDirectory;
    this.target = target;
    this.environment = environment;
  }

  /**
   * Snapshots, backs up and deletes the snapshot; returns the manifest's key.
   *
   * @throws UncheckedIOException when the snapshot or the upload fails (the snapshot is deleted)
   */
  String run() {
    Path snapshot = dataDirectory.resolve(SNAPSHOT_DIRECTORY);
    try {
      deleteTree(snapshot);
      StoreSnapshot taken = store.snapshot(snapshot);
      StringWriter log = new StringWriter();
      Backup.Report report;
      try (S3Client s3 = S3Client.fromEnvironment(environment)) {
        report =
            new Backup(s3, Clock.systemUTC())
                .run(snapshot, S3Location.parse(target), new PrintWriter(log));
      }
      LOG.log(
          System.Logger.Level.INFO,
          "BGSAVE: backed up to {0} up to sequence {1}: {2} files, {3} uploaded ({4} bytes),"
              + " manifest {5}",
          target,
          taken.lastSeq(),
          report.manifest().files().size(),
          report.uploaded(),
          report.bytesSent(),
          report.manifestKey());
      return report.manifestKey();
    } catch (IOException e) {
      throw new UncheckedIOException("BGSAVE to " + target + " failed: " + e.getMessage(), e);
    } finally {
      try {
        deleteTree(snapshot);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "BGSAVE could not delete " + snapshot, e);
      }
    }
  }

  /** Deletes {@code root} and everything under it, if it exists. */
  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
