package dev.cellar.bench.atrest;

import dev.cellar.backup.Backup;
import dev.cellar.backup.Restore;
import dev.cellar.backup.s3.S3Location;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One round of the backup comparison: the same store's files backed up and restored by Cellar's
 * tool and by the AWS SDK, each to a prefix of its own on the same endpoint, and copied with {@code
 * cp} on the same disk; every result synced. The order of the two clients alternates from round to
 * round, so neither always runs second on a warmer page cache.
 */
final class BackupRun {
  /** Each way's time and CPU in one round. */
  record Round(
      int round,
      Measured cellarBackup,
      Measured sdkUpload,
      Measured cellarRestore,
      Measured sdkDownload,
      Measured cp) {}

  private final Path store;
  private final List<Path> files;
  private final Path runDir;
  private final S3ProxyProcess endpoint;
  private final int partBytes;
  private final SdkProcess sdk;

  BackupRun(
      Path store,
      List<Path> files,
      Path runDir,
      S3ProxyProcess endpoint,
      int partBytes,
      SdkProcess sdk) {
    this.store = store;
    this.files = files;
    this.runDir = runDir;
    this.endpoint = endpoint;
    this.partBytes = partBytes;
    this.sdk = sdk;
  }

  Round round(int round) throws IOException, InterruptedException {
    Measured cellarBackup;
    Measured sdkUpload;
    Measured cellarRestore;
    Measured sdkDownload;
    long server = endpoint.pid();
    S3Location cellarPrefix = new S3Location(S3ProxyProcess.BUCKET, "cellar-" + round);
    String sdkPrefix = "sdk-" + round;
    long self = ProcessHandle.current().pid();
    long sdkPid = sdk.pid();
    PrintWriter quiet = new PrintWriter(Writer.nullWriter());
    Backup backup = new Backup(endpoint.client(), Clock.systemUTC(), partBytes);
    Restore restore = new Restore(endpoint.client());
    Path cellarTarget = runDir.resolve("restored-cellar-" + round);
    Path sdkTarget = runDir.resolve("restored-sdk-" + round);
    if (round % 2 == 1) {
      cellarBackup = Measured.of(self, server, () -> backup.run(store, cellarPrefix, quiet));
      sdkUpload = Measured.of(sdkPid, server, () -> sdk.upload(files, sdkPrefix));
      cellarRestore =
          Measured.of(self, server, () -> restore.run(cellarPrefix, null, cellarTarget, quiet));
      sdkDownload = Measured.of(sdkPid, server, () -> sdk.download(files, sdkPrefix, sdkTarget));
    } else {
      sdkUpload = Measured.of(sdkPid, server, () -> sdk.upload(files, sdkPrefix));
      cellarBackup = Measured.of(self, server, () -> backup.run(store, cellarPrefix, quiet));
      sdkDownload = Measured.of(sdkPid, server, () -> sdk.download(files, sdkPrefix, sdkTarget));
      cellarRestore =
          Measured.of(self, server, () -> restore.run(cellarPrefix, null, cellarTarget, quiet));
    }
    checkSame(cellarTarget);
    checkSame(sdkTarget);
    deleteTree(cellarTarget);
    deleteTree(sdkTarget);
    Path copy = runDir.resolve("cp-" + round);
    Measured cp = Measured.of(self, 0, () -> copyAndSync(copy));
    checkSame(copy);
    deleteTree(copy);
    return new Round(round, cellarBackup, sdkUpload, cellarRestore, sdkDownload, cp);
  }

  /** {@code cp -r} of the store, then each copied file synced, as the restores sync theirs. */
  private void copyAndSync(Path copy) throws IOException, InterruptedException {
    Process cp =
        new ProcessBuilder("cp", "-r", store.toString(), copy.toString()).inheritIO().start();
    if (cp.waitFor() != 0) {
      throw new IOException("cp -r " + store + " " + copy + " failed");
    }
    for (Path file : files) {
      try (FileChannel channel =
          FileChannel.open(copy.resolve(file.getFileName().toString()), StandardOpenOption.READ)) {
        channel.force(true);
      }
    }
  }

  /** Each file the run transfers arrived whole: the same length and bytes. */
  private void checkSame(Path dir) throws IOException {
    for (Path file : files) {
      Path other = dir.resolve(file.getFileName().toString());
      if (Files.mismatch(file, other) != -1) {
        throw new IOException(other + " differs from " + file + ": the transfer is broken");
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The middle value (the lower of the two middle ones for an even count). */
  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get((sorted.size() - 1) / 2);
  }
}
