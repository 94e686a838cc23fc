package dev.cellar.bench.atrest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;

/**
 * The CPU time of the whole process, every thread, in nanoseconds: {@code
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID)} through FFM on Linux. The JDK's {@code
 * OperatingSystemMXBean.getProcessCpuTime()} reads it in clock ticks, 10 ms here, which is a tenth
 * of a plain store's recovery of 100,000 records. Elsewhere, or if the call fails, that bean's
 * figure is used.
 */
final class ProcessCpuClock {
  /** Linux's clock id; the layout of {@code struct timespec} on 64-bit Linux is two longs. */
  private static final int CLOCK_PROCESS_CPUTIME_ID = 2;

  private static final MethodHandle CLOCK_GETTIME = clockGettime();
  private static final com.sun.management.OperatingSystemMXBean BEAN =
      ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);

  private ProcessCpuClock() {}

  /** Where the figures come from, for the report. */
  static String source() {
    return CLOCK_GETTIME != null
        ? "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"
        : "OperatingSystemMXBean.getProcessCpuTime";
  }

  static long nanos() {
    if (CLOCK_GETTIME != null) {
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment ts = arena.allocate(16, 8);
        if ((int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts) == 0) {
          return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L
              + ts.get(ValueLayout.JAVA_LONG, 8);
        }
      } catch (Throwable e) {
        // fall through to the bean
      }
    }
    return BEAN.getProcessCpuTime();
  }

  private static MethodHandle clockGettime() {
    if (!System.getProperty("os.name", "").startsWith("Linux")
        || !System.getProperty("os.arch", "").matches("amd64|x86_64|aarch64")) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("clock_gettime")
          .map(
              f ->
                  linker.downcallHandle(
                      f,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
          .orElse(null);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }
}
