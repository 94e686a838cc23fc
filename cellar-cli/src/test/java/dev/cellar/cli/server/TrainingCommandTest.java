package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cellar aot-training}, the launcher's training run for the start-up cache, in a JVM of its
 * own with the launcher's options: it must start a real server, drive the whole load through it
 * without one error reply, stop it with SHUTDOWN and exit 0, or the launcher would make no cache
 * (or a cache of a failed start). The cache itself needs the packaged jars (the JVM archives no
 * classes from directories), so the launcher's own run is where it is made and checked.
 */
class TrainingCommandTest {
  @TempDir Path tmp;

  @Test
  void servesTheLoadStopsCleanlyAndLeavesNothingBehind() throws Exception {
    Path scratch = Files.createDirectories(tmp.resolve("java-tmp"));
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(ServerProcess.LAUNCHER_OPTIONS);
    cmd.addAll(
        List.of(
            "-Djava.io.tmpdir=" + scratch,
            "-cp",
            System.getProperty("java.class.path"),
            "dev.cellar.cli.Main",
            "aot-training"));
    Path out = tmp.resolve("stdout.txt");
    Path err = tmp.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), () -> "exit code; stderr:\n" + stderr);
    assertTrue(
        stderr.contains("cellar aot-training: 921200 RESP replies and 300 HTTP requests served"),
        stderr);
    try (Stream<Path> left = Files.list(scratch)) {
      assertEquals(
          List.of(),
          left.filter(f -> f.getFileName().toString().startsWith("cellar-aot-training")).toList(),
          "the training's data directory is deleted");
    }
  }
}
