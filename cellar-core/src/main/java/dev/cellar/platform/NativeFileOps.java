package dev.cellar.platform;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * {@code posix_fallocate(3)} through the FFM linker. Java has no API that reserves file blocks
 * without writing them, and a write through a mapping into an unreserved block of a full disk
 * raises SIGBUS instead of an error we could report.
 *
 * <p>Linking a native function is a restricted operation: it is used only when the JVM was started
 * with {@code --enable-native-access} for this module (the {@code cellar} launcher and the server
 * do this), so an embedding application that does not grant it gets no warning, just the slower
 * zero-filling fallback in {@link PlatformStoreFile}.
 */
final class NativeFileOps {
  private static final int O_RDWR = 2;

  /**
   * Linux x86-64 and aarch64: the descriptor is kept open, so a child process must not inherit it.
   */
  private static final int O_CLOEXEC = 0x80000;

  private static final int ENOSPC = 28;

  /** Linux x86-64 and aarch64: a quota is full, which for the store is the same as a full disk. */
  private static final int EDQUOT = 122;

  private static final MethodHandle OPEN =
      Libc.function(
          "open",
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
          Linker.Option.firstVariadicArg(2));
  private static final MethodHandle POSIX_FALLOCATE =
      Libc.function(
          "posix_fallocate",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG));

  /**
   * Linked when a reserved file is first closed, not with the others: a server's start opens its
   * first segment but closes none, and each link costs about 10 ms of CPU.
   */
  private static final class Close {
    static final MethodHandle HANDLE =
        Libc.function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  }

  private static final class Fadvise {
    static final MethodHandle HANDLE =
        Libc.function(
            "posix_fadvise",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
  }

  private static final int POSIX_FADV_DONTNEED = 4;

  private NativeFileOps() {}

  /**
   * Asks the kernel to drop the clean pages of the file open on {@code fd} from the page cache
   * ({@code POSIX_FADV_DONTNEED}; pages still mapped by some process stay). A hint.
   */
  static void dropCache(int fd) {
    if (Fadvise.HANDLE == null) {
      return;
    }
    try {
      int ignored = (int) Fadvise.HANDLE.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
    } catch (Throwable t) {
      // a hint: the pages stay until the kernel needs the memory
    }
  }

  /** Whether {@link #open} and {@link #fallocate} work here (with them, libc's close is there). */
  static boolean available() {
    return OPEN != null && POSIX_FALLOCATE != null;
  }

  /**
   * Opens {@code path} for writing and returns its descriptor, for {@link #fallocate}: a {@link
   * java.nio.channels.FileChannel} does not give its own away.
   */
  static int open(Path path) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      int fd = (int) OPEN.invokeExact(arena.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC);
      if (fd < 0) {
        throw new IOException("cannot open " + path + " to reserve space");
      }
      return fd;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("open failed on " + path, t);
    }
  }

  /**
   * Closes a descriptor from {@link #open}, or any other this package opened natively for no writes
   * (an io_uring instance); a failure to close has nothing left to lose.
   */
  static void close(int fd) {
    try {
      int ignored = (int) Close.HANDLE.invokeExact(fd);
    } catch (Throwable t) {
      // Nothing was written through this descriptor (fallocate only), so no data depends on it.
    }
  }

  /**
   * Reserves blocks for the range of the file open on {@code fd}; throws an IOException naming
   * ENOSPC when the disk is full. {@code path} only names the file in messages.
   */
  static void fallocate(int fd, Path path, long offset, long length) throws IOException {
    int err;
    try {
      err = (int) POSIX_FALLOCATE.invokeExact(fd, offset, length);
    } catch (Throwable t) {
      throw new IOException("posix_fallocate call failed on " + path, t);
    }
    if (err == ENOSPC) {
      throw new IOException(
          "No space left on device: cannot reserve " + length + " bytes in " + path);
    }
    if (err == EDQUOT) {
      throw new IOException("Disk quota exceeded: cannot reserve " + length + " bytes in " + path);
    }
    if (err != 0) {
      throw new IOException("posix_fallocate failed with errno " + err + " on " + path);
    }
  }
}
