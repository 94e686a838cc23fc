package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.platform.MemoryAdvice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether the log segment being appended to asks for huge pages, read back from the kernel: the
 * {@code hg} flag of its mapping in {@code /proc/self/smaps}. Under frequent fsyncs a huge page
 * makes each fsync write a 2 MiB folio, so {@link Fsync#ALWAYS}, {@link Fsync#EVERYSEC} and {@code
 * hugePageLogTail(false)} map the tail with small pages; {@link Fsync#NO} keeps huge pages for
 * cheaper reads.
 */
class LogTailPagesTest {
  private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

  @TempDir Path dir;

  @Test
  void fsyncAlwaysMapsTheTailWithSmallPages() throws IOException {
    assumeTrue(MemoryAdvice.available(), "madvise is not linked here");
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.ALWAYS))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(List.of(false), hugePageFlags(dir));
    }
    // Reopened for appends (a clean close leaves a small last segment to go on with): still small.
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.ALWAYS))) {
      db.put(new byte[] {3}, new byte[] {4});
      assertFalse(hugePageFlags(dir).contains(true), "a reopened tail asked for huge pages");
    }
  }

  @Test
  void fsyncEverysecMapsTheTailWithSmallPages() throws IOException {
    assumeTrue(MemoryAdvice.available(), "madvise is not linked here");
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.EVERYSEC))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(List.of(false), hugePageFlags(dir));
    }
  }

  @Test
  void fsyncNoKeepsHugePagesUnlessTurnedOff() throws IOException {
    assumeTrue(MemoryAdvice.available(), "madvise is not linked here");
    try (Cellar db = Cellar.open(dir.resolve("no"), CellarOptions.defaults().fsync(Fsync.NO))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(List.of(true), hugePageFlags(dir.resolve("no")));
    }
    try (Cellar db =
        Cellar.open(
            dir.resolve("off"), CellarOptions.defaults().fsync(Fsync.NO).hugePageLogTail(false))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(List.of(false), hugePageFlags(dir.resolve("off")));
    }
  }

  /** For each mapping of a log segment of {@code store}: whether its VmFlags include {@code hg}. */
  private static List<Boolean> hugePageFlags(Path store) throws IOException {
    String prefix = store.toRealPath().toString() + "/seg-";
    List<Boolean> flags = new ArrayList<>();
    boolean inSegment = false;
    for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
      if (MAPPING.matcher(line).lookingAt()) {
        String[] fields = line.trim().split("\\s+", 6);
        inSegment =
            fields.length == 6 && fields[5].startsWith(prefix) && fields[5].endsWith(".log");
      } else if (inSegment && line.startsWith("VmFlags:")) {
        flags.add(List.of(line.substring("VmFlags:".length()).trim().split(" ")).contains("hg"));
        inSegment = false;
      }
    }
    return flags;
  }
}
