package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.platform.ThreadPriority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance thread runs at the configured nice value and the idle compactor in the idle
 * scheduling class, both read back from the kernel ({@code /proc/self/task/TID/stat}), and the
 * application's threads keep theirs.
 */
class BackgroundPriorityTest {
  @TempDir Path dir;

  @Test
  void theMaintenanceThreadRunsAtTheConfiguredNiceValue() throws Exception {
    int base = ThreadPriority.currentNice();
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO).backgroundNice(7))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(List.of(Math.max(7, base)), awaitNiceOf("cellar-maintena", n -> n >= 7));
      assertEquals(
          base, ThreadPriority.currentNice(), "the application's thread keeps its priority");
    }
  }

  @Test
  void zeroLeavesTheMaintenanceThreadAtTheApplicationsPriority() throws Exception {
    int base = ThreadPriority.currentNice();
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO).backgroundNice(0))) {
      db.put(new byte[] {1}, new byte[] {2});
      Thread.sleep(100); // time to change it, were it going to
      assertEquals(List.of(base), awaitNiceOf("cellar-maintena", n -> true));
    }
  }

  @Test
  void idleCompactionRunsOnAThreadOfTheIdleSchedulingClass() throws Exception {
    try (Cellar db = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO))) {
      db.put(new byte[] {1}, new byte[] {2});
      assertEquals(
          List.of(SCHED_IDLE),
          awaitStatField("cellar-idle-com", POLICY_FIELD, p -> p == SCHED_IDLE));
      assertEquals(
          List.of(SCHED_OTHER),
          awaitStatField("cellar-maintena", POLICY_FIELD, p -> true),
          "the maintenance thread keeps the normal policy");
    }
  }

  private static final int SCHED_OTHER = 0;
  private static final int SCHED_IDLE = 5;

  /** {@code policy} in proc(5)'s stat fields, 1-based. */
  private static final int POLICY_FIELD = 41;

  private static final int NICE_FIELD = 19;

  private static List<Integer> awaitNiceOf(String prefix, IntPredicate done)
      throws IOException, InterruptedException {
    return awaitStatField(prefix, NICE_FIELD, done);
  }

  @Test
  void niceValuesOutsideZeroToNineteenAreRefusedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Cellar.open(dir, CellarOptions.defaults().backgroundNice(20)));
    assertEquals("invalid Cellar option: backgroundNice 20 outside [0, 19]", e.getMessage());
  }

  /**
   * A stat field of this process's threads named {@code prefix}..., once there are some and all
   * pass {@code done}.
   */
  private static List<Integer> awaitStatField(String prefix, int field, IntPredicate done)
      throws IOException, InterruptedException {
    List<Integer> found = new ArrayList<>();
    for (int attempt = 0; attempt < 200; attempt++) {
      found.clear();
      try (var tasks = Files.list(Path.of("/proc/self/task"))) {
        for (Path task : tasks.toList()) {
          try {
            if (Files.readString(task.resolve("comm")).strip().startsWith(prefix)) {
              String stat = Files.readString(task.resolve("stat"));
              // Fields after the command name, which is in parentheses: state is field 3.
              String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
              found.add(Integer.parseInt(fields[field - 3]));
            }
          } catch (IOException gone) {
            // a thread that ended while we listed
          }
        }
      }
      if (!found.isEmpty() && found.stream().allMatch(done::test)) {
        return found;
      }
      Thread.sleep(10);
    }
    return found;
  }
}
