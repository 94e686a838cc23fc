package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one store's benchmark in a fresh JVM: the same {@code java} binary and class path as this
 * one, the same heap and GC flags for every store, plus the flags that store needs ({@link
 * StoreKind#jvmFlags()}). A fresh JVM per store keeps one store's garbage, JIT profile, mapped
 * files and native memory from colouring the next one's numbers.
 *
 * <p>The child's stderr (progress lines) passes straight through; its stdout, where some peers
 * print banners, is copied to this JVM's stderr so that stdout carries only the result table.
 */
final class ChildJvm {
  private final List<String> commonFlags;
  private final long timeoutMinutes;
  private final PrintStream log;

  /**
   * @param heap the {@code -Xms}/{@code -Xmx} value, e.g. {@code 8g}
   * @param extraFlags further flags for every child, after the common ones
   */
  ChildJvm(String heap, List<String> extraFlags, long timeoutMinutes, PrintStream log) {
    // AlwaysPreTouch: every store's heap is faulted in at start, so no phase pays first-touch
    // page faults of the Java heap (which otherwise land on whichever phase allocates first).
    List<String> flags =
        new ArrayList<>(
            List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"));
    flags.addAll(extraFlags);
    this.commonFlags = List.copyOf(flags);
    this.timeoutMinutes = timeoutMinutes;
    this.log = log;
  }

  /** The flags every child gets, for the report. */
  List<String> commonFlags() {
    return commonFlags;
  }

  /**
   * Runs the child to completion and returns its measurements; when the child fails, those it
   * recorded before failing, marked with the failure.
   */
  Measurements run(StoreKind kind, Workload workload, Path dataDir, Path resultFile)
      throws IOException, InterruptedException {
    Process child =
        new ProcessBuilder(command(kind, workload, dataDir, resultFile))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    child.getOutputStream().close();
    Thread copier = Thread.ofPlatform().daemon().start(() -> copy(child.getInputStream()));
    boolean finished = child.waitFor(timeoutMinutes, TimeUnit.MINUTES);
    if (!finished) {
      child.destroyForcibly().waitFor();
    }
    copier.join(TimeUnit.SECONDS.toMillis(10));
    Measurements results =
        Files.exists(resultFile) ? Measurements.read(resultFile) : new Measurements();
    if (!finished) {
      results.fail("did not finish within " + timeoutMinutes + " minutes");
    } else if (child.exitValue() != 0 && results.failure().isEmpty()) {
      results.fail("child JVM exited with status " + child.exitValue());
    }
    return results;
  }

  List<String> command(StoreKind kind, Workload workload, Path dataDir, Path resultFile) {
    List<String> command = new ArrayList<>();
    command.add(javaBinary());
    command.addAll(commonFlags);
    command.addAll(kind.jvmFlags());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(StoreRunner.class.getName());
    command.addAll(List.of("--store", kind.id(), "--dir", dataDir.toString()));
    command.addAll(List.of("--out", resultFile.toString()));
    command.addAll(workload.toArguments());
    return command;
  }

  private static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private void copy(InputStream childStdout) {
    try (childStdout) {
      childStdout.transferTo(log);
    } catch (IOException e) {
      log.println("lost child output: " + e);
    }
  }
}
