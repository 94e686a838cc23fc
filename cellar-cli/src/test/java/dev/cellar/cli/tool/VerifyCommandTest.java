package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import dev.cellar.inspect.StoreDirectory;
import dev.cellar.inspect.StoreMetaFile;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifyCommandTest {
  private static final Pattern REGION =
      Pattern.compile(
          "(ERROR|WARNING) (seg-[0-9a-f]{16}\\.log) offset (\\d+), (\\d+) bytes?: (.*)");

  @TempDir Path dir;
  private Path firstSegment;
  private Path lastSegment;

  @BeforeEach
  void createStore() throws IOException {
    TestStore.create(dir);
    List<Path> segments = TestStore.segments(dir);
    assertTrue(segments.size() >= 3, "expected several segments, got " + segments);
    firstSegment = segments.getFirst();
    lastSegment = segments.getLast();
  }

  private CommandRun verify() {
    return CommandRun.of("tool", "verify", dir.toString());
  }

  @Test
  void cleanStoreVerifies() {
    CommandRun run = verify();
    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertTrue(run.out().contains("Result: OK (0 errors, 0 warnings)"), run::toString);
    int records = TestStore.PUTS + TestStore.DELETES + TestStore.EXPIRING + 1;
    assertTrue(run.out().contains(String.format("%,d records", records)), run::toString);
    assertTrue(run.out().contains(String.format("%,d deletes", TestStore.DELETES)), run::toString);
    assertTrue(
        run.out().contains(String.format("of which %,d expiring", TestStore.EXPIRING)),
        run::toString);
    assertTrue(run.out().contains("cellar.meta"), run::toString);
    assertTrue(run.out().contains("checkpoint-"), run::toString);
    assertEquals("", run.err(), "no progress bar when not asked and not on a terminal");
  }

  @Test
  void flippedByteInSealedSegmentIsAnErrorAtItsOffset() throws IOException {
    long flipped = middleOfRecords(firstSegment);
    TestStore.flipByte(firstSegment, flipped);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(run.out().contains("Result: DAMAGED"), run::toString);
    Matcher region = onlyRegion(run, "ERROR");
    assertEquals(firstSegment.getFileName().toString(), region.group(2));
    assertCovers(region, flipped);
    assertDurableDamage(region);
  }

  @Test
  void zeroedBlockInSealedSegmentIsAnErrorAtItsOffset() throws IOException {
    long start = middleOfRecords(firstSegment) - 2048;
    TestStore.zero(firstSegment, start, 4096);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    Matcher region = onlyRegion(run, "ERROR");
    assertEquals(firstSegment.getFileName().toString(), region.group(2));
    assertCovers(region, start);
    assertCovers(region, start + 4095);
    assertDurableDamage(region);
  }

  @Test
  void truncatedSealedSegmentIsAnError() throws IOException {
    long sealedLength = TestStore.sealedLength(lastSegment);
    TestStore.truncate(lastSegment, sealedLength - 10);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    List<Matcher> errors = regions(run, "ERROR");
    Matcher shorter =
        errors.stream()
            .filter(m -> m.group(5).startsWith("file shorter than its sealed length"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no 'file shorter' error in\n" + run));
    assertEquals(lastSegment.getFileName().toString(), shorter.group(2));
    assertEquals(sealedLength - 10, Long.parseLong(shorter.group(3)));
    assertEquals(10, Long.parseLong(shorter.group(4)));
  }

  @Test
  void tornTailAfterTheLastCheckpointIsAWarningAndOpenAgrees(@TempDir Path crash)
      throws IOException {
    Path image = TestStore.crashImage(dir, crash, 100);
    Path active = TestStore.segments(image).getLast();
    long[] last = TestStore.lastRecord(active);
    TestStore.truncate(active, last[0] + last[1] - 3);

    CommandRun run = CommandRun.of("tool", "verify", image.toString());

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    Matcher tail = onlyRegion(run, "WARNING");
    assertEquals(active.getFileName().toString(), tail.group(2));
    assertEquals(last[0], Long.parseLong(tail.group(3)));
    assertEquals(last[1] - 3, Long.parseLong(tail.group(4)));
    assertTrue(tail.group(5).startsWith("torn tail (would be truncated on open)"), run::toString);
    assertTrue(run.out().contains("Result: OK (0 errors, 1 warning)"), run::toString);
    // Recovery takes the same view: the store opens, without the torn record.
    try (Cellar db = Cellar.open(image, TestStore.options())) {
      assertTrue(db.contains("late:98".getBytes()));
      assertFalse(db.contains("late:99".getBytes()));
    }
  }

  @Test
  void unsealedSegmentCutBeforeTheCheckpointIsAnError() throws IOException {
    long sealedLength = TestStore.sealedLength(lastSegment);
    TestStore.unseal(lastSegment);
    TestStore.truncate(lastSegment, sealedLength - 3);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    Matcher region = onlyRegion(run, "ERROR");
    assertEquals(lastSegment.getFileName().toString(), region.group(2));
    assertEquals(
        sealedLength - 3, Long.parseLong(region.group(3)) + Long.parseLong(region.group(4)));
    assertTrue(region.group(5).contains("made durable before checkpoint-"), run::toString);
  }

  @Test
  void damagedCheckpointIsAnError() throws IOException {
    Path checkpoint = StoreDirectory.list(dir).checkpoints().getLast();
    TestStore.flipByte(checkpoint, Files.size(checkpoint) - 1);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(
        run.out().contains("ERROR " + checkpoint.getFileName() + ": body checksum mismatch"),
        run::toString);
  }

  @Test
  void checkpointNamingAMissingSegmentIsAnError() throws IOException {
    Files.delete(firstSegment);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(
        run.out()
            .contains(
                "names segments that are missing or unreadable: " + firstSegment.getFileName()),
        run::toString);
  }

  @Test
  void badSegmentHeaderIsAnError() throws IOException {
    TestStore.flipByte(firstSegment, SegmentHeaderDescriptor.ID_OFFSET);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    Matcher region = onlyRegion(run, "ERROR");
    assertEquals(0, Long.parseLong(region.group(3)));
    assertTrue(region.group(5).contains("header checksum mismatch"), run::toString);
  }

  @Test
  void allZeroSegmentLeftByACrashIsAWarning() throws IOException {
    String name = String.format("seg-%016x.log", 0xFFFFL);
    Files.write(dir.resolve(name), new byte[4096]);

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertTrue(run.out().contains("WARNING " + name + ": all zeros"), run::toString);
  }

  @Test
  void missingIdentityFileIsAnErrorAndCheckpointsGoUnchecked() throws IOException {
    Files.delete(dir.resolve(StoreMetaFile.FILE_NAME));

    CommandRun run = verify();

    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(run.out().contains("ERROR cellar.meta: cellar.meta is missing"), run::toString);
    assertTrue(
        run.out().contains("not checked: the shard count in cellar.meta is unknown"),
        run::toString);
  }

  @Test
  void emptyDirectoryIsNotAStore() throws IOException {
    Path empty = Files.createDirectory(dir.resolve("empty"));
    CommandRun run = CommandRun.of("tool", "verify", empty.toString());
    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertTrue(run.out().contains("does not look like a Cellar store"), run::toString);
  }

  @Test
  void progressBarGoesToStderrOnlyWhenAsked() {
    CommandRun run = CommandRun.of("tool", "verify", "--progress", dir.toString());
    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    assertFalse(run.out().contains("\r"), "stdout stays clean: " + run);
  }

  /** Sealed, or unsealed but covered by the checkpoint: either way, not a crash artifact. */
  private static void assertDurableDamage(Matcher region) {
    String reason = region.group(5);
    assertTrue(
        reason.endsWith("in sealed data")
            || reason.contains("in data made durable before checkpoint-"),
        reason);
  }

  private static long middleOfRecords(Path segment) throws IOException {
    long end = TestStore.sealedLength(segment);
    return SegmentHeaderDescriptor.LENGTH + (end - SegmentHeaderDescriptor.LENGTH) / 2;
  }

  private static List<Matcher> regions(CommandRun run, String severity) {
    List<Matcher> found = new ArrayList<>();
    for (String line : run.out().lines().map(String::strip).toList()) {
      Matcher m = REGION.matcher(line);
      if (m.matches() && m.group(1).equals(severity)) {
        found.add(m);
      }
    }
    return found;
  }

  private static Matcher onlyRegion(CommandRun run, String severity) {
    List<Matcher> found = regions(run, severity);
    assertEquals(1, found.size(), () -> "expected one " + severity + " region in\n" + run);
    return found.getFirst();
  }

  private static void assertCovers(Matcher region, long offset) {
    long start = Long.parseLong(region.group(3));
    long length = Long.parseLong(region.group(4));
    assertTrue(
        start <= offset && offset < start + length,
        "region " + start + "+" + length + " does not cover offset " + offset);
  }
}
