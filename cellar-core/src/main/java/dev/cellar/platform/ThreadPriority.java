package dev.cellar.platform;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Lowers the CPU priority of the calling thread, best effort ({@code setpriority(2)} on its Linux
 * thread id), so that background work can yield a shared core to the application's threads; the
 * kernel weighs a thread at nice 10 about a tenth of one at nice 0. RocksDB offers the same for its
 * background pools ({@code Env::LowerThreadPoolCPUPriority}).
 *
 * <p>One way only: an unprivileged process may raise a thread's nice value but not lower it again,
 * so a value already at or above the one asked for is left alone. Without native access, or off
 * Linux, nothing happens.
 */
public final class ThreadPriority {
  private static final int PRIO_PROCESS = 0;

  // Each function is linked on first use, in a holder class of its own, so that the handle stays a
  // constant the JIT inlines: linking costs about 10 ms of CPU a function (the FFM linker spins
  // some twenty classes for each), and at start-up a server needs few of them.
  private static final class Gettid {
    static final MethodHandle HANDLE =
        Libc.function("gettid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
  }

  private static final class Setpriority {
    static final MethodHandle HANDLE =
        Libc.function(
            "setpriority",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT));
  }

  private static final class Getpriority {
    static final MethodHandle HANDLE =
        Libc.function(
            "getpriority",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  }

  /** Linux's SCHED_IDLE policy: the thread runs only when no other thread wants the CPU. */
  private static final int SCHED_IDLE = 5;

  private static final class SchedSetscheduler {
    static final MethodHandle HANDLE =
        Libc.function(
            "sched_setscheduler",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS));
  }

  private ThreadPriority() {}

  /**
   * Moves the calling platform thread to Linux's {@code SCHED_IDLE} policy, where it runs only on
   * CPU no other thread wants, and where a waking normal thread preempts it at once (a nice-19
   * thread, by contrast, may finish its time slice first: measured, that delay cost a one-core
   * server a sixth of its unpipelined throughput while a pass ran). Falls back to nice 19; returns
   * whether the thread now runs at idle priority (SCHED_IDLE or nice 19). Unprivileged processes
   * can do this, but not undo it.
   */
  public static boolean idleCurrentThread() {
    if (SchedSetscheduler.HANDLE != null && !Thread.currentThread().isVirtual()) {
      try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
        java.lang.foreign.MemorySegment param =
            arena.allocate(ValueLayout.JAVA_INT); // struct sched_param, priority 0
        if ((int) SchedSetscheduler.HANDLE.invokeExact(0, SCHED_IDLE, param) == 0) {
          return true;
        }
      } catch (Throwable t) {
        // fall back to a nice value
      }
    }
    return lowerCurrentThread(19);
  }

  /**
   * Sets the calling platform thread's nice value to {@code nice} (0 to 19) if that lowers its
   * priority; returns whether the thread now runs at {@code nice} or lower priority.
   */
  public static boolean lowerCurrentThread(int nice) {
    if (nice < 0 || nice > 19) {
      throw new IllegalArgumentException("nice must be 0 to 19, got " + nice);
    }
    if (Gettid.HANDLE == null || Setpriority.HANDLE == null || Thread.currentThread().isVirtual()) {
      return false;
    }
    try {
      int tid = (int) Gettid.HANDLE.invokeExact();
      if (Getpriority.HANDLE != null
          && (int) Getpriority.HANDLE.invokeExact(PRIO_PROCESS, tid) >= nice) {
        return true; // already this low: never raise a priority someone lowered on purpose
      }
      return (int) Setpriority.HANDLE.invokeExact(PRIO_PROCESS, tid, nice) == 0;
    } catch (Throwable t) {
      return false;
    }
  }

  /** The calling thread's nice value, or null when it cannot be read. */
  public static Integer currentNice() {
    if (Gettid.HANDLE == null || Getpriority.HANDLE == null || Thread.currentThread().isVirtual()) {
      return null;
    }
    try {
      int tid = (int) Gettid.HANDLE.invokeExact();
      // getpriority may legitimately return -1; errno is not reachable here, so a -1 is reported as
      // is.
      return (int) Getpriority.HANDLE.invokeExact(PRIO_PROCESS, tid);
    } catch (Throwable t) {
      return null;
    }
  }
}
