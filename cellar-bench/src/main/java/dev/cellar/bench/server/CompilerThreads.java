package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * CPU time a process's JIT compiler threads have used, from {@code /proc/<pid>/task/<tid>/stat}:
 * the threads HotSpot names {@code C1 CompilerThread<n>} and {@code C2 CompilerThread<n>} ({@code
 * comm} keeps their first 15 characters). Zero for a process without them (redis-server).
 *
 * <p>Why: the benchmark pins a server to one core, where a compiling JIT takes CPU from the event
 * loop. The warm-up runs until the compilers are nearly idle, and each measured run reports their
 * share, so a table never silently times compilation instead of serving.
 */
final class CompilerThreads {
  /**
   * Linux's USER_HZ, the unit of utime and stime in {@code stat}; 100 on every mainstream kernel.
   */
  private static final long TICKS_PER_SECOND = 100;

  private CompilerThreads() {}

  static Duration cpuTime(long pid) throws IOException {
    long ticks = 0;
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path thread : threads) {
        try {
          ticks += compilerTicks(Files.readString(thread.resolve("stat")));
        } catch (NoSuchFileException exited) {
          // The thread ended between listing and reading (HotSpot retires idle compiler threads).
        }
      }
    }
    return Duration.ofMillis(ticks * 1000 / TICKS_PER_SECOND);
  }

  /** utime + stime of a thread's {@code stat} line if the thread is a JIT compiler, else 0. */
  static long compilerTicks(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    String comm = stat.substring(open + 1, close);
    if (!comm.startsWith("C1 CompilerThre") && !comm.startsWith("C2 CompilerThre")) {
      return 0;
    }
    // Fields after the command: state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    String[] fields = stat.substring(close + 2).trim().split(" +");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
