package dev.cellar.server;

import dev.cellar.Cellar;
import dev.cellar.backup.Backup;
import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Location;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * {@code BGSAVE} with a {@code backup-target}: a backup of the running store to object storage, the
 * same backup {@code cellar tool backup} makes of a stopped one (docs/backup.md), through {@link
 * Backup#runOnline}: a snapshot into {@link #SNAPSHOT_DIRECTORY} inside the data directory (hard
 * links need the same file system; the engine ignores a subdirectory), uploaded, then deleted.
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
   * Backs the store up; returns the manifest's key.
   *
   * @throws UncheckedIOException when the snapshot or the upload fails (the snapshot is deleted)
   */
  String run() {
    try (S3Client s3 = S3Client.fromEnvironment(environment)) {
      Backup.Report report =
          new Backup(s3, Clock.systemUTC())
              .runOnline(
                  store,
                  dataDirectory.resolve(SNAPSHOT_DIRECTORY),
                  S3Location.parse(target),
                  new PrintWriter(new StringWriter()));
      LOG.log(
          System.Logger.Level.INFO,
          "BGSAVE: backed up to {0}: {1} files, {2} uploaded ({3} bytes), manifest {4}",
          target,
          report.manifest().files().size(),
          report.uploaded(),
          report.bytesSent(),
          report.manifestKey());
      return report.manifestKey();
    } catch (IOException e) {
      throw new UncheckedIOException("BGSAVE to " + target + " failed: " + e.getMessage(), e);
    }
  }

  /** Deletes a snapshot a killed BGSAVE left in {@code dataDirectory}. */
  static void discardLeftover(Path dataDirectory) throws IOException {
    Backup.discardSnapshot(dataDirectory.resolve(SNAPSHOT_DIRECTORY));
  }
}
