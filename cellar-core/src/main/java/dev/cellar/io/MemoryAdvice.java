package dev.cellar.io;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Hints to the Linux virtual-memory system through {@code madvise(2)}, best effort.
 *
 * <ul>
 *   <li>{@link #hugePages}: back a large index table with transparent huge pages. An index lookup
 *       is a random access into hundreds of megabytes; with 4 KiB pages nearly every lookup also
 *       misses the TLB and walks the page table, with 2 MiB pages the table fits the TLB. Systems in
 *       THP mode "madvise" (a common default) only do this for regions that ask.
 *   <li>{@link #populateWrite}: fault a range of a writable mapping in ahead of use without
 *       touching its contents ({@code MADV_POPULATE_WRITE}, Linux 5.14+), so the log writer does
 *       not take a page fault for each new 4 KiB page. Because it never writes data, it is safe to
 *       run on another thread while the writer appends below the range.
 * </ul>
 *
 * Linking {@code madvise} is a restricted FFM operation, used only when the JVM grants this module
 * native access (the {@code cellar} launcher does); otherwise every hint is skipped.
 */
public final class MemoryAdvice {
  public static final long HUGE_PAGE = 2L << 20;
  private static final int MADV_HUGEPAGE = 14;
  private static final int MADV_POPULATE_WRITE = 23;
  private static final MethodHandle MADVISE;

  static {
    MethodHandle madvise = null;
    if (MemoryAdvice.class.getModule().isNativeAccessEnabled()
        && System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      try {
        Linker linker = Linker.nativeLinker();
        madvise =
            linker.downcallHandle(
                linker.defaultLookup().find("madvise").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
      } catch (RuntimeException e) {
        madvise = null;
      }
    }
    MADVISE = madvise;
  }

  private MemoryAdvice() {}

  /** Whether hints are issued at all. */
  public static boolean available() {
    return MADVISE != null;
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

  private static boolean advise(MemorySegment memory, int advice) {
    if (MADVISE == null || memory.byteSize() == 0) {
      return false;
    }
    try {
      return (int) MADVISE.invokeExact(memory, memory.byteSize(), advice) == 0;
    } catch (Throwable t) {
      // A hint only: an old kernel answers EINVAL, a closed mapping throws; neither matters.
      return false;
    }
  }
}
