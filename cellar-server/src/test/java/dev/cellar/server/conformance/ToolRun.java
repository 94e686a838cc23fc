package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One run of an external program the tests drive ({@code redis-cli}, {@code redis-benchmark},
 * {@code python3}): its exit code and everything it printed. Input is written and output read on
 * their own threads, so a program that talks a lot cannot deadlock on a full pipe.
 */
public record ToolRun(int exitCode, String stdout, String stderr) {
  /**
   * Threads of our own rather than the common pool: on one or two cores that pool has a single
   * thread, and three blocking pipe transfers queued on it would wait for each other.
   */
  private static final ExecutorService PIPES =
      Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("tool-pipe-", 0).factory());

  /** Skips the calling test when {@code program} is not on the PATH. */
  public static void assumeInstalled(String program) {
    assumeTrue(
        onPath(program), program + " is not installed (scripts/install-test-tools.sh installs it)");
  }

  public static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs the pytest file {@code tests} against the server on {@code port}, which it reads from
   * {@code CELLAR_TEST_PORT}; skipped (an assumption) when python3 or a module of {@code imports}
   * (comma-separated, as {@code import} takes them) is missing.
   */
  public static ToolRun pytest(String imports, Path tests, int port, Duration timeout) {
    assumeInstalled("python3");
    ToolRun probe =
        run(List.of("python3", "-c", "import " + imports), new byte[0], Duration.ofSeconds(60));
    assumeTrue(probe.exitCode() == 0, imports + ": not all installed: " + probe.stderr());
    if (!Files.isRegularFile(tests)) {
      throw new AssertionError(tests.toAbsolutePath() + " is missing");
    }
    return run(
        List.of(
            "python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", tests.toString()),
        new byte[0],
        timeout,
        Map.of("CELLAR_TEST_PORT", Integer.toString(port), "PYTHONDONTWRITEBYTECODE", "1"));
  }

  /** How many tests pytest said passed, or -1 if it did not say. */
  public int pytestPassed() {
    java.util.regex.Matcher passed =
        java.util.regex.Pattern.compile("(\\d+) passed").matcher(stdout);
    return passed.find() ? Integer.parseInt(passed.group(1)) : -1;
  }

  public static ToolRun run(List<String> command, byte[] stdin, Duration timeout) {
    return run(command, stdin, timeout, Map.of());
  }

  /**
   * Runs {@code command} with {@code stdin} (may be empty) and extra environment; fails on timeout.
   */
  public static ToolRun run(
      List<String> command, byte[] stdin, Duration timeout, Map<String, String> environment) {
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(environment);
      Process p = builder.start();
      CompletableFuture<String> out = readAll(p.getInputStream());
      CompletableFuture<String> err = readAll(p.getErrorStream());
      CompletableFuture<Void> in =
          CompletableFuture.runAsync(
              () -> {
                try (OutputStream o = p.getOutputStream()) {
                  o.write(stdin);
                } catch (IOException e) {
                  // the program exited without reading all of it; its output says why
                }
              },
              PIPES);
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(
            String.join(" ", command)
                + " did not finish within "
                + timeout
                + "; printed so far: "
                + out.getNow("")
                + err.getNow(""));
      }
      in.join();
      return new ToolRun(
          p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new AssertionError("running " + String.join(" ", command), e);
    }
  }

  private static CompletableFuture<String> readAll(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        PIPES);
  }

  /** Everything printed, for failure messages. */
  public String output() {
    return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
  }
}
