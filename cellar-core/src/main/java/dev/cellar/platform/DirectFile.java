package dev.cellar.platform;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file opened read-only with {@code O_DIRECT}: reads go from the device into the caller's buffer,
 * past the page cache, which is what a store whose data outgrows memory wants for its random reads
 * (the page cache would otherwise churn, at kernel CPU cost, between what the reads need and what
 * they last touched). Buffers, lengths and positions must be multiples of the device's logical
 * block size; the read cache's 4 KiB blocks are.
 *
 * <p>Java cannot open a file with {@code O_DIRECT} without an unsupported JDK module, so {@code
 * open} and {@code pread} are called through FFM, which needs native access; {@link #supported}
 * says whether this JVM and platform have what it takes.
 *
 * <p>Closing is safe against readers: {@link #close} marks the file closed, and the descriptor is
 * closed by whichever comes last, the close or the last read in progress. A descriptor closed under
 * a {@code pread} could be reused by another open and the read would return another file's bytes.
 */
public final class DirectFile implements dev.cellar.io.DirectReader {
  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 0x80000;
  static final int O_DIRECT = oDirect();

  /** {@code open(2)} capturing errno; {@link DirectAppendFile} opens with it too. */
  static final MethodHandle OPEN =
      Libc.function(
          "open",
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
          Linker.Option.firstVariadicArg(2),
          Linker.Option.captureCallState("errno"));

  private static final MethodHandle PREAD =
      Libc.function(
          "pread",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG),
          Linker.Option.captureCallState("errno"));
  private static final MethodHandle FADVISE =
      Libc.function(
          "posix_fadvise",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT));
  private static final int POSIX_FADV_DONTNEED = 4;
  private static final MethodHandle CLOSE =
      Libc.function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

  private static final int EINTR = 4;
  private static final int CLOSED = Integer.MIN_VALUE;

  private final Path path;
  private final int fd;

  /** Reads in progress, or CLOSED plus those still in progress once closed. */
  private final AtomicInteger users = new AtomicInteger();

  private DirectFile(Path path, int fd) {
    this.path = path;
    this.fd = fd;
  }

  /** Whether files can be opened with {@code O_DIRECT} here (Linux, native access). */
  public static boolean supported() {
    return O_DIRECT != 0 && OPEN != null && PREAD != null && CLOSE != null;
  }

  /**
   * Opens {@code path} read-only with {@code O_DIRECT}.
   *
   * @throws IOException if it cannot be opened (the file system may refuse {@code O_DIRECT}: tmpfs
   *     does)
   */
  public static DirectFile open(Path path) throws IOException {
    if (!supported()) {
      throw new IOException(
          "O_DIRECT is not available here: it needs Linux and native access for the engine");
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(Libc.CallState.LAYOUT);
      int fd =
          (int)
              OPEN.invokeExact(
                  state, arena.allocateFrom(path.toString()), O_RDONLY | O_DIRECT | O_CLOEXEC);
      if (fd < 0) {
        throw new IOException(
            "cannot open " + path + " with O_DIRECT: errno " + Libc.CallState.errno(state));
      }
      return new DirectFile(path, fd);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("open of " + path + " failed", t);
    }
  }

  /**
   * Reads up to {@code into.byteSize()} bytes from {@code position} into {@code into} (native,
   * aligned); returns the bytes read, fewer only at the end of the file.
   *
   * @throws IllegalStateException if the file is closed (its segment was retired: a reader retries
   *     as for an unmapped segment)
   */
  public long read(long position, MemorySegment into) throws IOException {
    acquire();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(Libc.CallState.LAYOUT);
      long done = 0;
      while (done < into.byteSize()) {
        long n =
            (long)
                PREAD.invokeExact(
                    state, fd, into.asSlice(done), into.byteSize() - done, position + done);
        if (n == 0) {
          break;
        }
        if (n < 0) {
          int errno = Libc.CallState.errno(state);
          if (errno == EINTR) {
            continue;
          }
          throw new IOException(
              "O_DIRECT read of "
                  + path.getFileName()
                  + " at "
                  + (position + done)
                  + " failed: errno "
                  + errno);
        }
        done += n;
      }
      return done;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("pread of " + path + " failed", t);
    } finally {
      release();
    }
  }

  /**
   * Asks the kernel to drop the file's pages from {@code mapping} and from the page cache ({@code
   * POSIX_FADV_DONTNEED}): what was read or written through the mapping before reads went direct.
   * Best effort.
   */
  @Override
  public void dropPageCache(MemorySegment mapping) {
    // A shared file mapping (the platform's StoreFile.map): its pages refault from the file, so
    // dropping them loses nothing, and fadvise does not drop pages that are still mapped.
    MemoryAdvice.dontNeed(mapping);
    if (FADVISE == null) {
      return;
    }
    acquire();
    try {
      int ignored = (int) FADVISE.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
    } catch (Throwable t) {
      // A hint: the pages stay cached until the kernel needs them.
    } finally {
      release();
    }
  }

  /**
   * Holds the descriptor open for a read submitted elsewhere ({@link UringBlockReads}); returns
   * false once the file is closed. Each true is paired with {@link #releaseRead}.
   */
  boolean tryAcquire() {
    int n;
    do {
      n = users.get();
      if (n < 0) {
        return false;
      }
    } while (!users.compareAndSet(n, n + 1));
    return true;
  }

  void releaseRead() {
    release();
  }

  /** The descriptor: only between {@link #tryAcquire} and {@link #releaseRead}. */
  int descriptor() {
    return fd;
  }

  private void acquire() {
    int n;
    do {
      n = users.get();
      if (n < 0) {
        throw new IllegalStateException(path.getFileName() + " is closed");
      }
    } while (!users.compareAndSet(n, n + 1));
  }

  private void release() {
    if (users.decrementAndGet() == CLOSED) {
      closeDescriptor();
    }
  }

  @Override
  public void close() {
    int n;
    do {
      n = users.get();
      if (n < 0) {
        return;
      }
    } while (!users.compareAndSet(n, n + CLOSED));
    if (n == 0) {
      closeDescriptor();
    }
  }

  private void closeDescriptor() {
    try {
      int ignored = (int) CLOSE.invokeExact(fd);
    } catch (Throwable t) {
      // Read-only: nothing depends on the close succeeding.
    }
  }

  private static int oDirect() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return 0;
    }
    return switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> 0x4000;
      case "aarch64", "arm" -> 0x10000;
      case "ppc64le", "ppc64" -> 0x20000;
      default -> 0;
    };
  }
}
