package dev.cellar.index;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Asks Linux to back large index tables with transparent huge pages ({@code madvise(2)} with
 * {@code MADV_HUGEPAGE}). An index lookup is a random access into hundreds of megabytes; with 4 KiB
 * pages nearly every lookup also misses the TLB and walks the page table, with 2 MiB pages the
 * whole table fits the TLB. Systems whose THP mode is "madvise" (a common default) only do this
 * for regions that ask.
 *
 * <p>Like {@code posix_fallocate} in the io package, linking {@code madvise} is a restricted FFM
 * operation, used only when the JVM grants this module native access; otherwise it is skipped.
 */
final class HugePages {
  static final long HUGE_PAGE = 2L << 20;
  private static final int MADV_HUGEPAGE = 14;
  private static final MethodHandle MADVISE;

  static {
    MethodHandle madvise = null;
    if (HugePages.class.getModule().isNativeAccessEnabled()
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

  private HugePages() {}

  /** Advises huge pages for {@code memory} (which should be 2 MiB aligned); best effort. */
  static void advise(MemorySegment memory) {
    if (MADVISE == null || memory.byteSize() < HUGE_PAGE) {
      return;
    }
    try {
      int ignored = (int) MADVISE.invokeExact(memory, memory.byteSize(), MADV_HUGEPAGE);
    } catch (Throwable t) {
      // An optimisation only: a kernel without THP answers EINVAL, which is fine.
    }
  }
}
