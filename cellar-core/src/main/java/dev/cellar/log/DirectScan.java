package dev.cellar.log;

import dev.cellar.io.DirectReader;
import dev.cellar.platform.MemoryAdvice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A sealed segment's bytes for one scan from its start to its end (a compaction pass), read with
 * {@code O_DIRECT} in large sequential requests (4 MiB) rather than through its mapping: for a
 * store that reads with {@code io direct}, whose page cache is not where its data is kept, so that
 * a pass neither fills the page cache with a victim nor spends the kernel's CPU evicting it again.
 *
 * <p>The bytes land at their own offsets in an anonymous mapping the size of the segment, so the
 * scanner and the records it hands out read them exactly as they would read the file's mapping
 * (offsets, and the nonces of encrypted records, are the file's). Only the pages between the scan's
 * trailing edge and its read-ahead are resident: {@link #ensure} reads ahead of the scan ({@link
 * SegmentScanner.Window}), {@link #releaseBefore} gives the pages behind it back.
 *
 * <p>Confined to the thread that opened it.
 */
public final class DirectScan implements SegmentScanner.Window, AutoCloseable {
  /** The bytes one read asks for: the most the benchmark machine's disk takes in one request. */
  public static final long REQUEST_BYTES = 4L << 20;

  /** What stays resident behind the point a caller releases before: a batch's records. */
  private static final long KEEP_BEHIND = 4L << 20;

  /** Pages are given back in huge-page units (the memory is advised for them). */
  private static final long RELEASE_UNIT = 2L << 20;

  private static final long PAGE = 4096;

  private final Arena arena = Arena.ofConfined();
  private final MemorySegment memory;
  private final DirectReader reader;
  private final String name;
  private long filled;
  private long released;

  private DirectScan(Segment segment) {
    this.name = String.valueOf(segment.path().getFileName());
    this.reader = segment.directReader();
    long size = (segment.end() + PAGE - 1) & -PAGE;
    this.memory = MemoryAdvice.allocateScan(size, arena).asSlice(0, size);
  }

  /**
   * A scan of {@code segment}, which must read through the read cache ({@link
   * Segment#directReads}).
   *
   * @throws IllegalStateException if the segment was retired meanwhile
   */
  public static DirectScan open(Segment segment) {
    if (!segment.directReads()) {
      throw new IllegalArgumentException(segment.path().getFileName() + " is not read directly");
    }
    return new DirectScan(segment);
  }

  /** The segment's bytes, at the file's offsets; read only what {@link #ensure} made readable. */
  public MemorySegment memory() {
    return memory;
  }

  /**
   * Makes {@code [0, to)} readable, reading ahead in requests of {@link #REQUEST_BYTES}.
   *
   * @throws UncheckedIOException if a read fails
   */
  @Override
  public void ensure(long to) {
    long size = memory.byteSize();
    if (to <= filled || filled >= size) {
      return;
    }
    long target = Math.min(size, Math.max(to, filled + REQUEST_BYTES));
    target = Math.min(size, (target + PAGE - 1) & -PAGE);
    try {
      while (filled < target) {
        long n = Math.min(REQUEST_BYTES, target - filled);
        long read = reader.read(filled, memory.asSlice(filled, n));
        filled += n; // past the end of the file the memory stays zero, as the file's tail reads
        if (read < n) {
          filled = size;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "O_DIRECT read of " + name + " at " + filled + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Gives back the pages more than a few MiB before {@code offset}: the scan, and what reads its
   * records, are past them.
   */
  public void releaseBefore(long offset) {
    long to = Math.min(filled, (offset - KEEP_BEHIND) & -RELEASE_UNIT);
    if (to > released) {
      MemoryAdvice.release(memory.asSlice(released, to - released));
      released = to;
    }
  }

  @Override
  public void close() {
    arena.close();
  }
}
