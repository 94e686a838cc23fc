package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CompilerThreadsTest {
  // Real lines from /proc/<pid>/task/<tid>/stat of a Cellar server (utime 412, stime 31).
  private static final String C2 =
      "25293 (C2 CompilerThre) S 25285 25280 1 0 -1 1077936192 52519 0 0 0 412 31 0 0 20 0 20 0 8846 0 0 "
          + "18446744073709551615 0 0 0 0 0 0 0 4 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 0 0 0 0";
  private static final String LOOP =
      "25303 (cellar-loop-0) R 25285 25280 1 0 -1 4194368 1306 0 0 0 2190 77 0 0 20 0 20 0 9001 0 0 "
          + "18446744073709551615 0 0 0 0 0 0 0 4 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 0 0 0 0";

  @Test
  void countsOnlyCompilerThreads() {
    assertEquals(443, CompilerThreads.compilerTicks(C2));
    assertEquals(0, CompilerThreads.compilerTicks(LOOP));
    assertEquals(
        17,
        CompilerThreads.compilerTicks(
            C2.replace("(C2 CompilerThre)", "(C1 CompilerThre)").replace(" 412 31 ", " 10 7 ")));
  }

  @Test
  void aCommandWithParenthesesAndSpacesDoesNotShiftTheFields() {
    String tricky = LOOP.replace("(cellar-loop-0)", "(x) (C2 Compiler)");
    assertEquals(0, CompilerThreads.compilerTicks(tricky));
  }

  @Test
  void readsThisJvmsCompilerThreads() throws Exception {
    // The test JVM itself has compiler threads that have worked by now.
    long pid = ProcessHandle.current().pid();
    Duration before = CompilerThreads.cpuTime(pid);
    long sink = 0;
    for (int i = 0; i < 2_000_000; i++) {
      sink += Long.toString(i).hashCode();
    }
    assertTrue(sink != 1);
    assertTrue(CompilerThreads.cpuTime(pid).compareTo(before) >= 0);
    assertTrue(CompilerThreads.cpuTime(pid).toMillis() > 0, "no compiler CPU seen in this JVM");
  }
}
