package dev.cellar.bench.server;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The programs the benchmark runs, found once at start so that a missing one is reported before
 * anything is measured, with the package that provides it.
 *
 * <p>Cellar is started through the repository's {@code cellar} launcher script, exactly as a user
 * starts it, so the JVM flags for the server live in that one script.
 */
public record Tools(
    Path cellarScript,
    Path redisServer,
    Path redisCli,
    Path redisBenchmark,
    Path taskset,
    Optional<Path> strace) {

  /**
   * Finds every tool or throws naming what is missing.
   *
   * @param cellarScript the {@code cellar} launcher
   * @param needStrace whether a missing {@code strace} is an error (else syscalls are skipped)
   */
  public static Tools locate(Path cellarScript, boolean needStrace) {
    List<String> missing = new ArrayList<>();
    if (!Files.isExecutable(cellarScript)) {
      missing.add("the cellar launcher at " + cellarScript + " (pass --cellar PATH)");
    }
    Optional<Path> redisServer = onPath("redis-server", "redis-server", missing);
    Optional<Path> redisCli = onPath("redis-cli", "redis-tools", missing);
    Optional<Path> redisBenchmark = onPath("redis-benchmark", "redis-tools", missing);
    Optional<Path> taskset = onPath("taskset", "util-linux", missing);
    Optional<Path> strace = needStrace ? onPath("strace", "strace", missing) : Optional.empty();
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "cannot run the server benchmark; missing: " + String.join("; ", missing));
    }
    return new Tools(
        cellarScript,
        redisServer.get(),
        redisCli.get(),
        redisBenchmark.get(),
        taskset.get(),
        strace);
  }

  /**
   * The launcher of the checkout this class was loaded from: the jar is {@code
   * ROOT/cellar-bench/target/cellar-bench.jar}, the classes of a build {@code
   * ROOT/cellar-bench/target/classes}; either way three levels below the root.
   */
  public static Path defaultCellarScript() {
    try {
      Path location =
          Path.of(Tools.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return location.getParent().getParent().getParent().resolve("cellar");
    } catch (URISyntaxException | RuntimeException e) {
      return Path.of("cellar").toAbsolutePath();
    }
  }

  /** The repository root: the directory of the launcher. */
  Path repositoryRoot() {
    return cellarScript.toAbsolutePath().getParent();
  }

  private static Optional<Path> onPath(String program, String debianPackage, List<String> missing) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    missing.add(program + " (Debian package " + debianPackage + ")");
    return Optional.empty();
  }
}
