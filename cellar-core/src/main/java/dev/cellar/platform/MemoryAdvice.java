package dev.cellar.platform;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Hints to the Linux virtual-memory system through {@code madvise(2)}, best effort.
 *
 * <ul>
 *   <li>{@link #hugePages}: back a large index table with transparent huge pages. An index lookup
 *       is a random access into hundreds of megabytes; with 4 KiB pages nearly every lookup also
 *       misses the TLB and walks the page table, with 2 MiB pages the table fits the TLB. Systems
 *       in THP mode "madvise" (a common default) only do this for regions that ask.
 *   <li>{@link #populateWrite}: fault a range of a writable mapping in ahead of use without
 *       touching its contents ({@code MADV_POPULATE_WRITE}, Linux 5.14+), so the log writer does
 *       not take a page fault for each new 4 KiB page. Because it never writes data, it is safe to
 *       run on another thread while the writer appends below the range.
 *   <li>{@link #dontNeed}: drop the page-table entries of a shared file mapping no reader needs any
 *       more (a segment compaction replaced), so its pages leave the process's resident size at
 *       once instead of when the file is deleted. For a shared file mapping this never loses data
 *       ({@code MADV_DONTNEED} on a <em>private</em> or anonymous mapping would: it zeroes).
 * </ul>
 *
 * Linking {@code madvise} is a restricted FFM operation, used only when the JVM grants this module
 * native access (the {@code cellar} launcher does); otherwise every hint is skipped.
 */
public final class MemoryAdvice {
  public static final long HUGE_PAGE = 2L << 20;
  private static final int MADV_RANDOM = 1;
  private static final int MADV_SEQUENTIAL = 2;
  private static final int MADV_DONTNEED = 4;
  private static final int MADV_HUGEPAGE = 14;
  private static final int MADV_POPULATE_WRITE = 23;
  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
  private static final int MAP_NORESERVE = 0x4000;

  // Each function is linked on first use, in a holder class of its own, so that the handle stays a
  // constant the JIT inlines: linking costs about 10 ms of CPU a function (the FFM linker spins
  // some twenty classes for each), and at start-up a server needs few of them.
  private static final class Madvise {
    static final MethodHandle HANDLE =
        Libc.function(
            "madvise",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
  }

  static final class Mmap {
    static final MethodHandle HANDLE =
        Libc.function(
            "mmap",
            FunctionDescriptor.of(
                ValueLayout.ADDRESS,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG));
  }

  static final class Munmap {
    static final MethodHandle HANDLE =
        Libc.function(
            "munmap",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
  }

  /**
   * Zeroed memory of {@code bytes} for an index table, freed when {@code arena} closes. Large
   * tables come straight from an anonymous {@code mmap} advised for huge pages before anything
   * touches them ({@link Arena#allocate} zeroes its memory first, by which time the kernel has
   * already backed it with small pages); otherwise from the arena.
   */
  public static MemorySegment allocateTable(long bytes, Arena arena) {
    if (bytes < HUGE_PAGE
        || Mmap.HANDLE == null
        || Munmap.HANDLE == null
        || Madvise.HANDLE == null) {
      return arena.allocate(bytes, 64);
    }
    try {
      // Over-allocate by one huge page so the table can start on a 2 MiB boundary.
      long length = bytes + HUGE_PAGE;
      MemorySegment raw =
          (MemorySegment)
              Mmap.HANDLE.invokeExact(
                  MemorySegment.NULL, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
      if (raw.address() == -1L) {
        return arena.allocate(bytes, 64);
      }
      long aligned = (raw.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
      MemorySegment table =
          MemorySegment.ofAddress(aligned)
              .reinterpret(bytes, arena, ignored -> unmap(raw.address(), length));
      advise(table, MADV_HUGEPAGE);
      return table;
    } catch (Throwable t) {
      return arena.allocate(bytes, 64);
    }
  }

  /**
   * Memory of {@code bytes} (page-aligned, zero) for the bytes of a scan read from a file with
   * {@code O_DIRECT}, freed when {@code arena} closes: an anonymous mapping with no swap reserved,
   * so only the pages the scan fills take memory, and {@link #release} gives them back behind it.
   * Where {@code mmap} is not available, from the arena (all of it committed at once).
   */
  public static MemorySegment allocateScan(long bytes, Arena arena) {
    if (Mmap.HANDLE == null || Munmap.HANDLE == null || bytes == 0) {
      return arena.allocate(Math.max(1, bytes), 4096);
    }
    try {
      // 2 MiB aligned and advised for huge pages: the scan faults in a fresh page for every one it
      // has given back behind it, and a 4 KiB page a fault (zeroed, then overwritten by the read)
      // cost more kernel CPU than the reads themselves.
      long length = bytes + HUGE_PAGE;
      MemorySegment raw =
          (MemorySegment)
              Mmap.HANDLE.invokeExact(
                  MemorySegment.NULL,
                  length,
                  PROT_READ_WRITE,
                  MAP_PRIVATE_ANONYMOUS | MAP_NORESERVE,
                  -1,
                  0L);
      if (raw.address() == -1L) {
        return arena.allocate(bytes, 4096);
      }
      long aligned = (raw.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
      MemorySegment scan =
          MemorySegment.ofAddress(aligned)
              .reinterpret(bytes, arena, ignored -> unmap(raw.address(), length));
      advise(scan, MADV_HUGEPAGE);
      return scan;
    } catch (Throwable t) {
      return arena.allocate(bytes, 4096);
    }
  }

  /**
   * Gives back the pages of {@code memory}, a page-aligned range of {@link #allocateScan}'s memory:
   * they read as zeros if touched again. A hint; memory from the arena stays as it is.
   */
  public static void release(MemorySegment memory) {
    advise(memory, MADV_DONTNEED);
  }

  private static void unmap(long address, long length) {
    try {
      int ignored = (int) Munmap.HANDLE.invokeExact(MemorySegment.ofAddress(address), length);
    } catch (Throwable t) {
      // Nothing useful to do: the memory stays mapped until the process exits.
    }
  }

  private MemoryAdvice() {}

  /** Whether hints are issued at all. */
  public static boolean available() {
    return Madvise.HANDLE != null;
  }

  /** Advises huge pages for {@code memory}, which should be 2 MiB aligned. */
  public static void hugePages(MemorySegment memory) {
    if (memory.byteSize() >= HUGE_PAGE) {
      advise(memory, MADV_HUGEPAGE);
    }
  }

  /** Prefaults {@code memory} (page-aligned) writable; returns false if the kernel declined. */
  public static boolean populateWrite(MemorySegment memory) {
    return advise(memory, MADV_POPULATE_WRITE);
  }

  /**
   * Drops the resident pages of {@code mapping}, which must be a page-aligned <em>shared</em>
   * mapping of a file: its contents stay in the file and fault back in on access.
   */
  public static void dontNeed(MemorySegment mapping) {
    advise(mapping, MADV_DONTNEED);
  }

  /**
   * Turns off read-ahead for a file mapping read at random ({@code MADV_RANDOM}): a page fault then
   * reads the page it needs, not the megabytes around it that the device's read-ahead setting asks
   * for (8 MiB on the machine the benchmarks ran on, where a GET of a store larger than memory read
   * 3.5 MiB a fault).
   */
  public static void random(MemorySegment mapping) {
    advise(mapping, MADV_RANDOM);
  }

  /** Asks for aggressive read-ahead on a mapping about to be read from start to end. */
  public static void sequential(MemorySegment mapping) {
    advise(mapping, MADV_SEQUENTIAL);
  }

  private static boolean advise(MemorySegment memory, int advice) {
    if (Madvise.HANDLE == null || memory.byteSize() == 0) {
      return false;
    }
    try {
      return (int) Madvise.HANDLE.invokeExact(memory, memory.byteSize(), advice) == 0;
    } catch (Throwable t) {
      // A hint only: an old kernel answers EINVAL, a closed mapping throws; neither matters.
      return false;
    }
  }
}
