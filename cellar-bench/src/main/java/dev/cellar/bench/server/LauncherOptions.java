package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options every benchmark that starts {@code ./cellar server} shares (a picocli mixin): which
 * launcher, where the run's data goes, and whether it stays afterwards.
 */
public final class LauncherOptions {
  @Option(
      names = "--cellar",
      description =
          "The cellar launcher that starts the server (default: the one of this checkout).")
  Path cellarScript;

  @Option(
      names = "--dir",
      description = "Parent of the run's data directory (default the system temp directory).")
  Path baseDir;

  @Option(names = "--keep-data", description = "Keep the data directory and the server logs.")
  boolean keepData;

  /** The launcher named by {@code --cellar}, or this checkout's. */
  public Path launcher() {
    return cellarScript != null ? cellarScript : Tools.defaultCellarScript();
  }

  /** {@link #launcher()}, or a usage error of {@code command} when it cannot be run. */
  public Path executableLauncher(CommandSpec command) {
    Path script = launcher();
    if (!Files.isExecutable(script)) {
      throw new ParameterException(
          command.commandLine(), "no cellar launcher at " + script + " (pass --cellar PATH)");
    }
    return script;
  }

  /** A fresh directory for this run under {@code --dir} or the system temp directory. */
  public Path newRunDirectory(String prefix) throws IOException {
    Path parent =
        baseDir != null
            ? Files.createDirectories(baseDir)
            : Path.of(System.getProperty("java.io.tmpdir"));
    return Files.createTempDirectory(parent, prefix);
  }

  public boolean keepData() {
    return keepData;
  }
}
