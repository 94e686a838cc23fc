package dev.cellar.backup;

import dev.cellar.Cellar;
import dev.cellar.backup.s3.ObjectStore;
import dev.cellar.backup.s3.S3Location;
import dev.cellar.inspect.StoreDirectory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Backs a store directory up to an object store: every file of the store (its identity file,
 * checkpoints and log segments) as an object named by its SHA-256, then a {@link BackupManifest}
 * naming them. Objects the prefix already holds are not sent again, so a second backup of a store
 * uploads only what changed: new segments, the active segment if it grew, a new checkpoint. The
 * manifest goes last, so a backup interrupted before it leaves no manifest that names a missing
 * object; the objects it did send serve the next attempt.
 *
 * <p>The directory is held with the engine's own lock for the whole backup, so no server opens it
 * meanwhile and the files do not change under the copy; a store that is open is refused, naming its
 * process.
 */
public final class Backup {
  /** Files larger than this go in parts of this size, so an interrupted upload resumes. */
  public static final int PART_BYTES = 8 << 20;

  private final ObjectStore s3;
  private final Clock clock;
  private final int partBytes;

  public Backup(ObjectStore s3, Clock clock) {
    this(s3, clock, PART_BYTES);
  }

  /**
   * @param partBytes the size of a multipart upload's parts, at least 5 MiB (S3's least but for the
   *     last part); files no larger go in one request
   */
  public Backup(ObjectStore s3, Clock clock, int partBytes) {
    if (partBytes < PartedUpload.MIN_PART_BYTES) {
      throw new IllegalArgumentException("parts of at least 5 MiB, got " + partBytes);
    }
    this.s3 = s3;
    this.clock = clock;
    this.partBytes = partBytes;
  }

  /** What a backup did. */
  public record Report(BackupManifest manifest, String manifestKey, int uploaded, long bytesSent) {}

  /**
   * Backs up the open {@code store} to {@code target} without stopping it: a {@link
   * Cellar#snapshot} into {@code snapshotDirectory} (on the store's file system, where its files
   * are hard links), the backup of that directory, then the directory deleted, whatever happened. A
   * snapshot left there by a crash is deleted first.
   */
  public Report runOnline(Cellar store, Path snapshotDirectory, S3Location target, PrintWriter log)
      throws IOException {
    discardSnapshot(snapshotDirectory);
    try {
      store.snapshot(snapshotDirectory);
      return run(snapshotDirectory, target, log);
    } finally {
      discardSnapshot(snapshotDirectory);
    }
  }

  /**
   * Deletes a snapshot directory {@link #runOnline} made, if it exists: left by a crash, its hard
   * links would keep segments the store has deleted on the disk.
   */
  public static void discardSnapshot(Path snapshotDirectory) throws IOException {
    FileTrees.delete(snapshotDirectory);
  }

  /**
   * Backs up {@code directory} to {@code target}.
   *
   * @throws dev.cellar.StoreLockedException if a process has the store open
   * @throws dev.cellar.backup.s3.S3Exception if the object store refuses or cannot be reached
   */
  public Report run(Path directory, S3Location target, PrintWriter log) throws IOException {
    try (java.io.Closeable held = StoreDirectory.holdExclusively(directory)) {
      StoreDirectory store = StoreDirectory.list(directory);
      List<Path> files = new ArrayList<>();
      if (Files.isRegularFile(store.metaFile())) {
        files.add(store.metaFile());
      }
      files.addAll(store.checkpoints());
      files.addAll(store.segments());
      if (files.isEmpty()) {
        throw new IOException(directory + " holds no store files: nothing to back up");
      }
      Map<String, Long> present = s3.list(target.bucket(), target.key(BackupManifest.OBJECTS));
      List<BackupManifest.Entry> entries = new ArrayList<>();
      int uploaded = 0;
      long sent = 0;
      for (Path file : files) {
        FileDigest digest = FileDigest.of(file);
        BackupManifest.Entry entry =
            new BackupManifest.Entry(file.getFileName().toString(), digest.size(), digest.sha256());
        entries.add(entry);
        String key = target.key(entry.objectName());
        Long size = present.get(key);
        if (size != null && size == digest.size()) {
          log.printf(
              "kept     %s (%,d bytes, already in %s)%n", entry.name(), entry.size(), target);
          continue;
        }
        if (digest.size() > partBytes) {
          new PartedUpload(s3, target.bucket(), key, partBytes).run(file, digest.size(), log);
        } else {
          s3.put(target.bucket(), key, file, digest.sha256());
        }
        present.put(key, digest.size());
        uploaded++;
        sent += digest.size();
        log.printf("uploaded %s (%,d bytes)%n", entry.name(), entry.size());
      }
      BackupManifest manifest = new BackupManifest(clock.instant(), entries);
      String manifestKey = target.key(manifest.objectName());
      s3.put(target.bucket(), manifestKey, manifest.encode());
      log.printf(
          "backup %s: %d files, %d uploaded (%,d bytes), manifest %s%n",
          target, entries.size(), uploaded, sent, manifest.objectName());
      return new Report(manifest, manifestKey, uploaded, sent);
    }
  }
}
