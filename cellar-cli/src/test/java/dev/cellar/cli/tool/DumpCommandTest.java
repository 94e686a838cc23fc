package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpCommandTest {
  @TempDir Path dir;

  @BeforeEach
  void createStore() {
    TestStore.create(dir);
  }

  private List<String> recordLines(CommandRun run) {
    return run.out().lines().filter(l -> l.startsWith("seg-")).toList();
  }

  @Test
  void printsEveryRecordWithItsKey() {
    CommandRun run = CommandRun.of("tool", "dump", dir.toString());

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    List<String> lines = recordLines(run);
    assertEquals(TestStore.PUTS + TestStore.DELETES + TestStore.EXPIRING + 1, lines.size());
    assertTrue(
        lines.getFirst().matches("seg-0+1\\.log +64 +1 PUT +- +\\d+ \"user:0\""), lines.getFirst());
    assertTrue(
        lines.stream().anyMatch(l -> l.contains(" DELETE ") && l.endsWith("\"user:0\"")),
        run::toString);
    assertTrue(lines.stream().anyMatch(l -> l.endsWith("\"user:2999\"")), run::toString);
    assertTrue(
        lines.stream()
            .anyMatch(l -> l.matches(".* PUT +\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z +\\d+ \"session:0\"")),
        run::toString);
    assertTrue(run.out().contains("\"bin\\x00\\xff\\\"\""), "binary key escaped: " + run);
  }

  @Test
  void valuesOptionAddsAPreview() {
    CommandRun run = CommandRun.of("tool", "dump", "--values", "--limit", "1", dir.toString());

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertEquals(
        List.of(),
        recordLines(run).stream()
            .filter(l -> !l.endsWith("\"user:0\" \"" + new String(TestStore.value(0)) + "\""))
            .toList());
  }

  @Test
  void limitStopsEarly() {
    CommandRun run = CommandRun.of("tool", "dump", "--limit", "10", dir.toString());

    assertEquals(10, recordLines(run).size(), run::toString);
    assertTrue(run.out().contains("# 10 records (limit reached)"), run::toString);
  }

  @Test
  void segmentOptionSelectsOneFile() throws IOException {
    Path second = TestStore.segments(dir).get(1);
    String hexId = second.getFileName().toString().substring(4, 20).replaceFirst("^0+", "");

    CommandRun run = CommandRun.of("tool", "dump", "--segment", hexId, dir.toString());

    List<String> lines = recordLines(run);
    assertTrue(lines.size() > 0, run::toString);
    assertTrue(
        lines.stream().allMatch(l -> l.startsWith(second.getFileName().toString())), run::toString);
  }

  @Test
  void unknownSegmentIsAUsageError() {
    CommandRun run = CommandRun.of("tool", "dump", "--segment", "abcdef", dir.toString());

    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("no seg-0000000000abcdef.log in"), run::toString);
  }

  @Test
  void damageShowsAsACommentLine() throws IOException {
    Path first = TestStore.segments(dir).getFirst();
    TestStore.flipByte(first, TestStore.sealedLength(first) / 2);

    CommandRun run =
        CommandRun.of("tool", "dump", "--segment", first.getFileName().toString(), dir.toString());

    assertEquals(
        CellarCommand.EXIT_FAILURE,
        run.exitCode(),
        "damage fails the dump, as it fails verify: " + run);
    assertTrue(
        run.out()
            .lines()
            .anyMatch(l -> l.startsWith("# ERROR " + first.getFileName() + " offset ")),
        run::toString);
    assertTrue(
        run.err().startsWith("cellar tool dump: 1 error, 0 warnings in the segments read"),
        run::toString);
  }

  @Test
  void damageInAnyOfManySegmentsFailsTheWholeDump() throws IOException {
    Path middle = TestStore.segments(dir).get(1);
    TestStore.flipByte(middle, TestStore.sealedLength(middle) / 2);

    CommandRun run = CommandRun.of("tool", "dump", dir.toString());

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("1 error"), run::toString);
    assertTrue(
        recordLines(run).size() > TestStore.PUTS / 2,
        "records around the damage still dumped: " + run);
  }

  @Test
  void tornTailIsAWarningAndTheDumpSucceeds(@TempDir Path crash) throws IOException {
    Path image = TestStore.crashImage(dir, crash, 100);
    Path active = TestStore.segments(image).getLast();
    long[] last = TestStore.lastRecord(active);
    TestStore.truncate(active, last[0] + last[1] - 3);

    CommandRun run = CommandRun.of("tool", "dump", image.toString());

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), "warnings allowed, as in verify: " + run);
    assertTrue(
        run.out()
            .lines()
            .anyMatch(
                l -> l.startsWith("# WARNING " + active.getFileName() + " offset " + last[0])),
        run::toString);
    assertTrue(
        run.err().startsWith("cellar tool dump: 0 errors, 1 warning in the segments read"),
        run::toString);
  }

  @Test
  void cleanStoreSaysNothingOnStderr() {
    CommandRun run = CommandRun.of("tool", "dump", dir.toString());

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertEquals("", run.err(), "no damage, and no progress bar off a terminal");
  }
}
