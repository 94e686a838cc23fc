package dev.cellar.backup;

import dev.cellar.backup.s3.ObjectStore;
import dev.cellar.backup.s3.S3Location;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Restores a backup into a new store directory. Every object is downloaded into a staging directory
 * beside the target and checked against the manifest (its size and SHA-256) before anything is
 * where a store would be opened; only when all of them check is the staging directory synced and
 * renamed into place. So a restore that fails (a damaged or missing object, a store that cannot be
 * reached) leaves no directory that would open as a store with part of its data.
 */
public final class Restore {
  private final ObjectStore s3;

  public Restore(ObjectStore s3) {
    this.s3 = s3;
  }

  /** What a restore did. */
  public record Report(BackupManifest manifest, String manifestName, long bytes) {}

  /**
   * Restores the newest backup under {@code source} (or the manifest named {@code manifestName}, as
   * {@code manifests/....manifest}) into {@code directory}, which must not exist or be empty.
   *
   * @throws BackupException when there is no backup, a manifest does not parse, or an object is
   *     missing or does not match the manifest
   */
  public Report run(S3Location source, String manifestName, Path directory, PrintWriter log)
      throws IOException {
    if (Files.exists(directory) && !isEmptyDirectory(directory)) {
      throw new BackupException(
          directory + " exists and is not empty: restore into a new or empty directory");
    }
    String name = manifestName != null ? manifestName : newestManifest(source);
    BackupManifest manifest;
    try {
      manifest = BackupManifest.decode(s3.get(source.bucket(), source.key(name)));
    } catch (IllegalArgumentException e) {
      throw new BackupException("manifest " + name + " in " + source + ": " + e.getMessage());
    }
    Path absolute = directory.toAbsolutePath();
    Path staging = absolute.resolveSibling(absolute.getFileName() + ".restoring");
    FileTrees.delete(staging); // what an earlier restore that failed hard may have left
    Files.createDirectories(staging);
    long bytes = 0;
    try {
      for (BackupManifest.Entry entry : manifest.files()) {
        Path file = staging.resolve(entry.name());
        String sha256 = s3.get(source.bucket(), source.key(entry.objectName()), file);
        long size = Files.size(file);
        if (size != entry.size() || !sha256.equals(entry.sha256())) {
          throw new BackupException(
              entry.name()
                  + " from "
                  + source
                  + " is damaged: "
                  + size
                  + " bytes with SHA-256 "
                  + sha256
                  + ", the manifest says "
                  + entry.size()
                  + " bytes with "
                  + entry.sha256()
                  + "; nothing was restored");
        }
        sync(file);
        bytes += size;
        log.printf("verified %s (%,d bytes)%n", entry.name(), entry.size());
      }
      sync(staging);
      if (Files.exists(directory)) {
        Files.delete(directory); // empty, checked above
      }
      Files.move(staging, absolute, StandardCopyOption.ATOMIC_MOVE);
      sync(absolute.getParent());
    } catch (IOException | RuntimeException e) {
      FileTrees.delete(staging);
      throw e;
    }
    log.printf(
        "restored %s (%s, %d files, %,d bytes) into %s%n",
        source, name, manifest.files().size(), bytes, directory);
    return new Report(manifest, name, bytes);
  }

  /** The newest manifest's name under {@code source}. */
  String newestManifest(S3Location source) {
    List<String> keys =
        List.copyOf(s3.list(source.bucket(), source.key(BackupManifest.MANIFESTS)).keySet());
    String prefix = source.key("");
    return keys.stream()
        .filter(k -> k.endsWith(BackupManifest.SUFFIX))
        .max(Comparator.naturalOrder())
        .map(k -> k.substring(prefix.length()))
        .orElseThrow(() -> new BackupException("no backup in " + source));
  }

  private static boolean isEmptyDirectory(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return false;
    }
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.findAny().isEmpty();
    }
  }

  private static void sync(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
