package dev.cellar.bench.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Bytes a directory occupies on disk, as {@code du -s -B1} counts them: allocated blocks, so a
 * sparse or preallocated-but-unwritten file counts for what it really holds, not its length.
 */
final class DiskUsage {
  private DiskUsage() {}

  static long allocatedBytes(Path directory) throws IOException {
    Process du =
        new ProcessBuilder("du", "-s", "-B1", directory.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String output = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!du.waitFor(5, TimeUnit.MINUTES) || du.exitValue() != 0) {
        throw new IOException("du -s -B1 " + directory + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for du", e);
    }
    return Long.parseLong(output.trim().split("\\s+")[0]);
  }
}
