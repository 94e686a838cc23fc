package dev.cellar.bench.atrest;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class path of the backup benchmark's child JVMs (s3proxy, the AWS SDK): this JVM's, plus
 * {@code lib-at-rest/} beside the benchmark's jar, where the build puts the libraries that no other
 * benchmark's JVM should carry. Under a test runner those libraries are on this JVM's class path
 * already, and the directory is absent.
 */
final class AtRestClasspath {
  private AtRestClasspath() {}

  static String get() {
    String own = System.getProperty("java.class.path");
    try {
      Path here =
          Path.of(
              AtRestClasspath.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path libs = here.resolveSibling("lib-at-rest");
      if (Files.isDirectory(libs)) {
        return own + File.pathSeparator + libs + File.separator + "*";
      }
    } catch (Exception e) {
      // no code source: this JVM's class path is all there is
    }
    return own;
  }

  /** The java executable of this JVM. */
  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }
}
