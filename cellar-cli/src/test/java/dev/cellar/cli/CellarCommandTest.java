package dev.cellar.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CellarCommandTest {

  @Test
  void versionNamesTheProjectVersion() {
    CommandRun run = CommandRun.of("--version");
    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertTrue(run.out().startsWith("cellar 0."), run::toString);
    assertFalse(run.out().contains("${"), "version resource not filtered: " + run);
  }

  @Test
  void noCommandIsAUsageError() {
    CommandRun run = CommandRun.of();
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("name a command"), run::toString);
    assertTrue(run.err().contains("demo"), run::toString);
  }

  @Test
  void unknownOptionIsAUsageError() {
    CommandRun run = CommandRun.of("demo", "--no-such-option");
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
  }

  @Test
  void toolWithoutSubcommandIsAUsageError() {
    CommandRun run = CommandRun.of("tool");
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("verify, dump, backup or restore"), run::toString);
  }

  @Test
  void missingDirectoryIsAUsageError(@TempDir Path dir) {
    CommandRun run = CommandRun.of("tool", "verify", dir.resolve("absent").toString());
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("is not a directory"), run::toString);
  }
}
