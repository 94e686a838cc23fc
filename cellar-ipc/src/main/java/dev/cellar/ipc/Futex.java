package dev.cellar.ipc;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Linux futexes on words in shared mappings, through the C library's {@code syscall} by an FFM
 * downcall: a thread sleeps in the kernel until another process changes the word and wakes it, so
 * an idle side of a ring costs no CPU. Shared (not {@code FUTEX_PRIVATE_FLAG}) because the two
 * sides are different processes mapping the same file; the kernel keys such a futex by the page and
 * offset, not by the address, so each side may map the file anywhere.
 *
 * <p>Where there is no futex (not Linux, an architecture whose futex number is unknown here, or a
 * JVM that does not grant this module native access), {@link #available()} is false and {@link
 * #await} parks for a short interval instead: the transport still works, but an idle side polls.
 */
public final class Futex {
  private static final int FUTEX_WAIT = 0;
  private static final int FUTEX_WAKE = 1;

  /** How long a waiter without a futex parks between looks at its word. */
  static final long POLL_NANOS = 50_000;

  private static final MethodHandle WAIT;
  private static final MethodHandle WAKE;

  static {
    MethodHandle wait = null;
    MethodHandle wake = null;
    long number = syscallNumber();
    if (number > 0
        && Futex.class.getModule().isNativeAccessEnabled()
        && System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      try {
        Linker linker = Linker.nativeLinker();
        Optional<MemorySegment> syscall = linker.defaultLookup().find("syscall");
        if (syscall.isPresent()) {
          // long syscall(long number, ...): here (uaddr, op, val, timeout, uaddr2, val3).
          FunctionDescriptor d =
              FunctionDescriptor.of(
                  ValueLayout.JAVA_LONG,
                  ValueLayout.JAVA_LONG,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.ADDRESS,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_INT);
          wait = linker.downcallHandle(syscall.get(), d, Linker.Option.firstVariadicArg(1));
          // A wake never blocks, so it may skip the thread-state transition of a normal downcall.
          wake =
              linker.downcallHandle(
                  syscall.get(),
                  d,
                  Linker.Option.firstVariadicArg(1),
                  Linker.Option.critical(false));
          wait = java.lang.invoke.MethodHandles.insertArguments(wait, 0, number);
          wake = java.lang.invoke.MethodHandles.insertArguments(wake, 0, number);
        }
      } catch (RuntimeException | LinkageError e) {
        wait = null;
        wake = null;
      }
    }
    WAIT = wait;
    WAKE = wake;
  }

  private Futex() {}

  private static long syscallNumber() {
    return switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> 202;
      case "aarch64", "riscv64" -> 98;
      default -> -1;
    };
  }

  /** Whether waits sleep in the kernel (true) or poll (false). */
  public static boolean available() {
    return WAIT != null;
  }

  /**
   * Sleeps while the 4-byte word at {@code word} holds {@code expected}, for at most {@code
   * timeoutNanos}, or until woken; may return early (a signal, a spurious wake-up), so callers look
   * again at what they wait for.
   */
  public static void await(MemorySegment word, int expected, long timeoutNanos) {
    if (WAIT == null) {
      java.util.concurrent.locks.LockSupport.parkNanos(Math.min(timeoutNanos, POLL_NANOS));
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment timeout = arena.allocate(16, 8);
      timeout.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
      timeout.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
      long ignored =
          (long)
              WAIT.invokeExact(
                  unscoped(word), FUTEX_WAIT, expected, timeout, MemorySegment.NULL, 0);
    } catch (Throwable t) {
      throw new IllegalStateException("futex wait failed", t);
    }
  }

  /**
   * The word's address without its arena. A segment passed to a downcall holds its arena for the
   * call, and a wait holds it up to its timeout: the mapping's owner could not close it meanwhile
   * (a client closing its connection while its reader sleeps). The kernel only compares the word
   * and sleeps; if the mapping goes meanwhile, the wait ends with an error the caller treats as a
   * spurious wake-up, and its next look finds the channel closed.
   */
  private static MemorySegment unscoped(MemorySegment word) {
    return MemorySegment.ofAddress(word.address());
  }

  /** Wakes every thread, in any process, sleeping on the word at {@code word}. */
  public static void wakeAll(MemorySegment word) {
    if (WAKE == null) {
      return;
    }
    try {
      long ignored =
          (long)
              WAKE.invokeExact(
                  unscoped(word),
                  FUTEX_WAKE,
                  Integer.MAX_VALUE,
                  MemorySegment.NULL,
                  MemorySegment.NULL,
                  0);
    } catch (Throwable t) {
      throw new IllegalStateException("futex wake failed", t);
    }
  }
}
