package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.Cellar;
import dev.cellar.cli.CellarCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cellar tool dump DIR > file} at a terminal: the bar goes to stderr, which is the terminal,
 * so it shows although stdout is a file. A real terminal is needed, so the command runs in a child
 * JVM under util-linux {@code script}, which gives it a pseudo-terminal; the shell inside redirects
 * stdout to a file, and whatever reaches the terminal comes back on script's output.
 */
class DumpProgressTest {
  /**
   * Enough records that the dump outlasts the bar's first 100 ms, in a JVM that has just started.
   */
  private static final int KEYS = 200_000;

  @TempDir Path dir;

  @Test
  void progressShowsOnTheTerminalWhileTheOutputGoesToAFile() throws Exception {
    Path script = Path.of("/usr/bin/script");
    assumeTrue(Files.isExecutable(script), "needs util-linux script(1) for a pseudo-terminal");
    Path store = dir.resolve("store");
    try (Cellar db = Cellar.open(store, TestStore.options())) {
      for (int n = 0; n < KEYS; n++) {
        db.put(TestStore.key(n), TestStore.value(n));
      }
    }
    Path records = dir.resolve("records.txt");
    String java = ProcessHandle.current().info().command().orElse("java");
    String command =
        String.join(
            " ",
            List.of(
                quote(java),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                quote(System.getProperty("java.class.path")),
                CellarCommand.class.getName(),
                "tool",
                "dump",
                "--values",
                quote(store.toString()),
                ">",
                quote(records.toString())));

    Process child =
        new ProcessBuilder(script.toString(), "-q", "-e", "-c", command, "/dev/null")
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .start();
    String terminal = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(120, TimeUnit.SECONDS), terminal);

    assertEquals(0, child.exitValue(), terminal);
    assertTrue(
        terminal.contains("% ") && terminal.contains("\r["),
        "a progress bar on the terminal:\n" + terminal);
    assertTrue(
        Files.readString(records).contains(String.format("# %,d records", KEYS)),
        "the dump went to the file");
    assertTrue(!Files.readString(records).contains("\r"), "no bar in the file");
  }

  private static String quote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
