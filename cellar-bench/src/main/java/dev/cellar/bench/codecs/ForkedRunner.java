package dev.cellar.bench.codecs;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Measures each approach in a JVM of its own, as JMH forks: approaches share library code (two Fory
 * rows run the same buffer and resolver classes with different settings; every row runs the JDK's
 * streams and collections), and in one JVM the JIT would compile that code for whichever ran first,
 * or for all at once.
 *
 * <p>A child runs {@link CodecsBenchmark} in process for one approach, with this JVM's flags (less
 * debugging agents), a fixed heap, and the {@code java.lang.invoke} open that spares Fory its
 * {@code sun.misc.Unsafe} fallback. Its progress goes to this JVM's stderr; its result comes back
 * through a file ({@link ApproachResult}).
 */
final class ForkedRunner {
  /** Every child gets the same heap, so no row's figures depend on the heap its JVM chose. */
  static final List<String> CHILD_FLAGS =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "--enable-native-access=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED");

  private final List<String> childOptions;
  private final long timeoutSeconds;

  /**
   * @param childOptions the benchmark options every child gets (durations, messages, clock)
   * @param expectedSeconds how long a child should take; it is killed after far longer
   */
  ForkedRunner(List<String> childOptions, double expectedSeconds) {
    this.childOptions = List.copyOf(childOptions);
    this.timeoutSeconds = (long) (expectedSeconds * 3) + 120;
  }

  ApproachResult run(String key) throws IOException, InterruptedException {
    Path result = Files.createTempFile("cellar-codecs-" + key + "-", ".txt");
    try {
      Process child =
          new ProcessBuilder(command(key, result))
              .redirectOutput(ProcessBuilder.Redirect.INHERIT)
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      if (!child.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        child.destroyForcibly().waitFor();
        throw new IOException(key + ": the child JVM took over " + timeoutSeconds + " s");
      }
      if (child.exitValue() != 0) {
        throw new IOException(key + ": the child JVM exited with status " + child.exitValue());
      }
      return ApproachResult.readFrom(result);
    } finally {
      Files.deleteIfExists(result);
    }
  }

  List<String> command(String key, Path result) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(CHILD_FLAGS);
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // A debugger or agent attached to the parent must not be started again in the child.
      if (!flag.startsWith("-agentlib")
          && !flag.startsWith("-javaagent")
          && !flag.startsWith("-Xrunjdwp")
          && !flag.startsWith("-Xdebug")) {
        command.add(flag);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(CodecsBenchmark.class.getName());
    command.addAll(childOptions);
    command.addAll(List.of("--approaches", key, "--no-fork", "--child-result", result.toString()));
    return command;
  }
}
