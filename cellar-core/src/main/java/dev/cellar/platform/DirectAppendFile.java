package dev.cellar.platform;

import dev.cellar.io.DirectAppender;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * A segment file appended with {@code O_DIRECT} ({@link DirectAppender}) on Linux, through FFM.
 *
 * <p>The memory is an anonymous private mapping with no swap reserved, so only the pages appends
 * reach take memory; with huge pages asked for, it starts on a 2 MiB boundary and is advised for
 * them. Write-outs {@code pwrite} whole 4 KiB blocks from it on a descriptor opened with {@code
 * O_DIRECT}: the last, partial block again each time, which is safe because what it held before is
 * a prefix of what it holds now. {@link #mapFile} mmaps the file with {@code MAP_FIXED} over the
 * memory's addresses: the kernel swaps the pages under a reader, which reads the same bytes before
 * and after, and the arena's cleanup unmaps whatever is there then.
 *
 * <p>Write-outs, the remap and close are serialised on this object: a descriptor closed under a
 * {@code pwrite} could be reused by another open, and the write would land in another file.
 */
final class DirectAppendFile implements DirectAppender {
  private static final long BLOCK = 4096;
  private static final int O_RDWR = 2;
  private static final int O_CLOEXEC = 0x80000;
  private static final int PROT_READ = 0x1;
  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_SHARED = 0x01;
  private static final int MAP_FIXED = 0x10;
  private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
  private static final int MAP_NORESERVE = 0x4000;
  private static final int EINTR = 4;

  /** Linked on first use: a store that never appends with O_DIRECT pays nothing for them. */
  private static final class Calls {
    static final MethodHandle PWRITE =
        Libc.function(
            "pwrite",
            FunctionDescriptor.of(
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    static final MethodHandle STRERROR =
        Libc.function("strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
  }

  private final Path path;
  private final MemorySegment memory;
  private int fd;

  private DirectAppendFile(Path path, int fd, MemorySegment memory) {
    this.path = path;
    this.fd = fd;
    this.memory = memory;
  }

  /** Whether this platform can append with O_DIRECT at all (Linux, native access). */
  static boolean supported() {
    return DirectFile.O_DIRECT != 0
        && DirectFile.OPEN != null
        && Calls.PWRITE != null
        && MemoryAdvice.Mmap.HANDLE != null
        && MemoryAdvice.Munmap.HANDLE != null;
  }

  /**
   * Opens {@code path} with {@code O_DIRECT} and allocates its memory in {@code arena}; returns
   * null if the file system refuses {@code O_DIRECT} (tmpfs) or memory cannot be mapped.
   */
  static DirectAppendFile open(Path path, long capacity, boolean hugePages, Arena arena)
      throws IOException {
    if (!supported()) {
      return null;
    }
    int fd;
    try (Arena call = Arena.ofConfined()) {
      MemorySegment state = call.allocate(Libc.CallState.LAYOUT);
      fd =
          (int)
              DirectFile.OPEN.invokeExact(
                  state,
                  call.allocateFrom(path.toString()),
                  O_RDWR | DirectFile.O_DIRECT | O_CLOEXEC);
      if (fd < 0) {
        // EINVAL: the file system does not do O_DIRECT; anything else is a real failure.
        int errno = Libc.CallState.errno(state);
        if (errno == 22) {
          return null;
        }
        throw new IOException(
            "cannot open " + path.getFileName() + " with O_DIRECT: " + describe(errno));
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("open of " + path + " failed", t);
    }
    MemorySegment memory = allocate((capacity + BLOCK - 1) & -BLOCK, hugePages, arena);
    if (memory == null) {
      NativeFileOps.close(fd);
      return null;
    }
    return new DirectAppendFile(path, fd, memory);
  }

  private static MemorySegment allocate(long bytes, boolean hugePages, Arena arena) {
    long align = hugePages ? MemoryAdvice.HUGE_PAGE : BLOCK;
    long length = bytes + (align == BLOCK ? 0 : align);
    try {
      MemorySegment raw =
          (MemorySegment)
              MemoryAdvice.Mmap.HANDLE.invokeExact(
                  MemorySegment.NULL,
                  length,
                  PROT_READ_WRITE,
                  MAP_PRIVATE_ANONYMOUS | MAP_NORESERVE,
                  -1,
                  0L);
      if (raw.address() == -1L) {
        return null;
      }
      long start = (raw.address() + align - 1) & -align;
      long rawAddress = raw.address();
      MemorySegment memory =
          MemorySegment.ofAddress(start)
              .reinterpret(bytes, arena, ignored -> unmap(rawAddress, length));
      if (hugePages) {
        MemoryAdvice.hugePages(memory);
      }
      return memory;
    } catch (Throwable t) {
      return null;
    }
  }

  private static void unmap(long address, long length) {
    try {
      int ignored =
          (int) MemoryAdvice.Munmap.HANDLE.invokeExact(MemorySegment.ofAddress(address), length);
    } catch (Throwable t) {
      // the memory stays mapped until the process exits
    }
  }

  @Override
  public MemorySegment memory() {
    return memory;
  }

  @Override
  public synchronized void writeOut(long from, long to) throws IOException {
    if (fd < 0) {
      throw new IOException(path.getFileName() + " is closed");
    }
    long start = from & -BLOCK;
    long end = Math.min(memory.byteSize(), (to + BLOCK - 1) & -BLOCK);
    try (Arena call = Arena.ofConfined()) {
      MemorySegment state = call.allocate(Libc.CallState.LAYOUT);
      long at = start;
      while (at < end) {
        long n = (long) Calls.PWRITE.invokeExact(state, fd, memory.asSlice(at), end - at, at);
        if (n < 0) {
          int errno = Libc.CallState.errno(state);
          if (errno == EINTR) {
            continue;
          }
          throw new IOException(
              "O_DIRECT write of "
                  + path.getFileName()
                  + " at "
                  + at
                  + " failed: "
                  + describe(errno));
        }
        at += n;
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("pwrite of " + path + " failed", t);
    }
  }

  @Override
  public synchronized boolean mapFile() {
    if (fd < 0) {
      return false;
    }
    try {
      MemorySegment mapped =
          (MemorySegment)
              MemoryAdvice.Mmap.HANDLE.invokeExact(
                  memory, memory.byteSize(), PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0L);
      return mapped.address() == memory.address();
    } catch (Throwable t) {
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (fd >= 0) {
      NativeFileOps.close(fd);
      fd = -1;
    }
  }

  /** errno as the C library names it ("No space left on device"), and its number. */
  private static String describe(int errno) {
    String text = "errno " + errno;
    if (Calls.STRERROR != null) {
      try {
        MemorySegment message = (MemorySegment) Calls.STRERROR.invokeExact(errno);
        text = message.reinterpret(256).getString(0) + " (errno " + errno + ")";
      } catch (Throwable t) {
        // the number alone
      }
    }
    return text;
  }
}
