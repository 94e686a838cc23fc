package dev.cellar.server.command;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time as {@code INFO cpu} reports it: the process's and its children's, split into system and
 * user time as Linux keeps them, and the event loops' (the threads that run commands, Redis's main
 * thread).
 */
final class ProcessCpu {
  private ProcessCpu() {}

  /** Linux reports process times in USER_HZ, 100 a second on every architecture it runs on. */
  private static final double TICKS_PER_SECOND = 100;

  /** Name prefix of the threads that run commands. */
  private static final String LOOP_PREFIX = "cellar-loop-";

  /**
   * System, user, children's system and children's user seconds. From {@code /proc/self/stat} where
   * there is one; elsewhere the JVM's process CPU time, all of it as user time.
   */
  static double[] read() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // The command name, field 2, is in parentheses and may hold spaces: count from after it.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // f[0] is field 3 (state); utime, stime, cutime and cstime are fields 14 to 17.
      double utime = Long.parseLong(f[11]) / TICKS_PER_SECOND;
      double stime = Long.parseLong(f[12]) / TICKS_PER_SECOND;
      double cutime = Long.parseLong(f[13]) / TICKS_PER_SECOND;
      double cstime = Long.parseLong(f[14]) / TICKS_PER_SECOND;
      return new double[] {stime, utime, cstime, cutime};
    } catch (IOException | RuntimeException notLinux) {
      var os = ManagementFactory.getOperatingSystemMXBean();
      long nanos =
          os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
      return new double[] {0, Math.max(nanos, 0) / 1e9, 0, 0};
    }
  }

  /** System and user seconds of the event loops, summed; zeros where the JVM does not measure. */
  static double[] eventLoops() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
      return new double[] {0, 0};
    }
    long cpu = 0;
    long user = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null || !info.getThreadName().startsWith(LOOP_PREFIX)) {
        continue;
      }
      long c = threads.getThreadCpuTime(info.getThreadId());
      long u = threads.getThreadUserTime(info.getThreadId());
      if (c >= 0 && u >= 0) {
        cpu += c;
        user += u;
      }
    }
    return new double[] {Math.max(cpu - user, 0) / 1e9, user / 1e9};
  }
}
