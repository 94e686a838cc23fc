package dev.cellar.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
  @TempDir Path dir;

  private CommandRun demo() {
    return CommandRun.of("demo", "--keys", "10000", "--dir", dir.toString());
  }

  @Test
  void writesReopensAndReadsBackTwice() {
    CommandRun first = demo();
    assertEquals(CellarCommand.EXIT_OK, first.exitCode(), first::toString);
    assertTrue(first.out().contains("new (empty)"), first::toString);
    assertTrue(first.out().contains("10,000 puts"), first::toString);
    assertTrue(first.out().contains("10,000 gets"), first::toString);
    assertTrue(first.out().contains("0 wrong or missing"), first::toString);
    assertTrue(first.out().contains("recovery: checkpoint"), first::toString);
    assertTrue(first.out().contains("keys 10,000"), first::toString);

    CommandRun second = demo();
    assertEquals(CellarCommand.EXIT_OK, second.exitCode(), second::toString);
    assertTrue(second.out().contains("already had 10,000 keys"), second::toString);
    assertTrue(second.out().contains("0 wrong or missing"), second::toString);

    CommandRun verify = CommandRun.of("tool", "verify", dir.toString());
    assertEquals(CellarCommand.EXIT_OK, verify.exitCode(), verify::toString);
  }

  @Test
  void lockedStoreFailsWithAMessageAndNoStackTrace() {
    try (Cellar held = Cellar.open(dir)) {
      assertEquals(0, held.size());
      CommandRun run = demo();
      assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
      assertTrue(run.err().startsWith("cellar demo: "), run::toString);
      assertFalse(run.err().contains("\tat "), "no stack trace: " + run);
    }
  }

  @Test
  void keysMustBePositive() {
    CommandRun run = CommandRun.of("demo", "--keys", "0", "--dir", dir.toString());
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
  }
}
