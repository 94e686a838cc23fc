package dev.cellar.bench.atrest;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The page cache of a store's files, put in a known state before a read row: all of it in memory
 * ({@link #warm}, read once), or none of it ({@link #evict}: synced, then {@code
 * posix_fadvise(POSIX_FADV_DONTNEED)}, through FFM).
 *
 * <p>Evicting is needed before a child is started in a memory cgroup, not only for a cold start: a
 * page in the cache stays charged to the cgroup that first read it, so pages the parent wrote would
 * be outside the child's limit, and a store the parent just built would read as if it fitted.
 * Evicting file by file, rather than {@code /proc/sys/vm/drop_caches}, touches no one else's files
 * (and needs no writable {@code /proc/sys}).
 */
final class PageCache {
  private PageCache() {}

  /** Reads every file to its end, so that all of them are in the page cache. */
  static void warm(List<Path> files) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    for (Path f : files) {
      try (FileChannel channel = FileChannel.open(f, StandardOpenOption.READ)) {
        while (channel.read(buffer.clear()) >= 0) {
          // read to the end
        }
      }
    }
  }

  /** Writes back and drops every file's pages from the page cache. */
  static void evict(List<Path> files) throws IOException {
    for (Path f : files) {
      try (FileChannel channel = FileChannel.open(f, StandardOpenOption.READ)) {
        channel.force(true);
      }
      dontNeed(f);
    }
  }

  private static void dontNeed(Path file) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      int fd = (int) Libc.OPEN.invokeExact(arena.allocateFrom(file.toString()), Libc.O_RDONLY);
      if (fd < 0) {
        throw new IOException("open(" + file + ") failed, so its pages cannot be evicted");
      }
      try {
        int rc = (int) Libc.FADVISE.invokeExact(fd, 0L, 0L, Libc.POSIX_FADV_DONTNEED);
        if (rc != 0) {
          throw new IOException("posix_fadvise(" + file + ", DONTNEED) returned error " + rc);
        }
      } finally {
        // A close that fails after an advice leaves nothing to undo: the pages are gone either way.
        int unused = (int) Libc.CLOSE.invokeExact(fd);
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException("evicting " + file + " from the page cache", e);
    }
  }

  /** libc's functions, linked on first eviction only: warming needs none of them. */
  private static final class Libc {
    private static final int O_RDONLY = 0;
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN =
        function(
            "open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle FADVISE =
        function(
            "posix_fadvise",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE =
        function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private static MethodHandle function(String name, FunctionDescriptor descriptor) {
      return LINKER
          .defaultLookup()
          .find(name)
          .map(f -> LINKER.downcallHandle(f, descriptor))
          .orElseThrow(() -> new IllegalStateException("libc has no " + name));
    }
  }
}
