package dev.cellar.log;

import dev.cellar.io.DirectReader;
import dev.cellar.platform.MemoryAdvice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A sealed segment's bytes for one scan to its end (a compaction pass, a change stream), read with
 * {@code O_DIRECT} in large sequential requests (4 MiB) rather than through its mapping: for a
 * store that reads with {@code io direct}, whose page cache is not where its data is kept, so that
 * a pass neither fills the page cache with a victim nor spends the kernel's CPU evicting it again.
 *
 * <h2>Memory</h2>
 *
 * The bytes land at their own offsets in an anonymous mapping the size of the segment, so the
 * scanner and the records it hands out read them exactly as they would read the file's mapping
 * (offsets, and the nonces of encrypted records, are the file's). Only the pages between the scan's
 * trailing edge and its read-ahead are resident: {@link #releaseBefore} gives the pages behind it
 * back, in huge-page units (the memory is advised for huge pages: faulting in a fresh 4 KiB page
 * for every one given back cost more kernel CPU than the reads themselves).
 *
 * <h2>Read-ahead</h2>
 *
 * A thread of the scan's own reads ahead of it, {@link #AHEAD_BYTES} past the furthest point the
 * scan has asked for, so that the device works while the scan parses: read one request at a time on
 * the scan's thread, a pass waited for every request in turn. {@link #ensure} waits only when the
 * scan catches up with the reads. The reader writes only past {@link #filled} and the scan reads
 * only below it; {@code filled} is volatile, written after each read completes, so what the scan
 * reads below it is what the read brought. {@link #close} stops the reader and waits for its read
 * in flight before the memory is freed.
 *
 * <p>Used by one thread, the one that opened it, besides its reader.
 */
public final class DirectScan implements SegmentScanner.Window, AutoCloseable {
  /** The bytes one read asks for: the most the benchmark machine's disk takes in one request. */
  public static final long REQUEST_BYTES = 4L << 20;

  /** How far past what the scan asked for the reader keeps reading. */
  static final long AHEAD_BYTES = 2 * REQUEST_BYTES;

  /** What stays resident behind the point a caller releases before: a batch's records. */
  private static final long KEEP_BEHIND = 4L << 20;

  /** Pages are given back in huge-page units. */
  private static final long RELEASE_UNIT = 2L << 20;

  private static final long PAGE = 4096;

  private final Arena arena = Arena.ofShared();
  private final MemorySegment memory;
  private final DirectReader reader;
  private final String name;

  /** The thread waiting in {@link #ensure} for the reads ahead, woken after each one. */
  private volatile Thread waiter = Thread.currentThread();

  private final Thread readAhead;

  /** Bytes from the start that are read and may be parsed. Written by the reader only. */
  private volatile long filled;

  /** The furthest point the scan has asked for. Written by the scan only. */
  private volatile long wanted;

  /** Whether the reader is parked for want of room ahead; read by the scan to wake it. */
  private volatile boolean readerWaiting;

  private volatile IOException failure;
  private volatile boolean closed;
  private long released;

  private DirectScan(Segment segment, long from) {
    this.name = String.valueOf(segment.path().getFileName());
    this.reader = segment.directReader();
    long size = (segment.end() + PAGE - 1) & -PAGE;
    this.memory = MemoryAdvice.allocateScan(size, arena).asSlice(0, size);
    long start = Math.min(size, Math.max(0, from) & -PAGE);
    this.filled = start;
    this.wanted = start;
    this.released = start & -RELEASE_UNIT;
    this.readAhead =
        Thread.ofPlatform().daemon().name("cellar-scan-" + name).start(() -> readAheadLoop(start));
  }

  /**
   * A scan of {@code segment}, which must read through the read cache ({@link
   * Segment#directReads}).
   *
   * @throws IllegalStateException if the segment was retired meanwhile
   */
  public static DirectScan open(Segment segment) {
    return open(segment, 0);
  }

  /**
   * A scan of {@code segment} from {@code from} on (a change stream's position): only bytes at or
   * after it are read, and may be parsed.
   */
  public static DirectScan open(Segment segment, long from) {
    if (!segment.directReads()) {
      throw new IllegalArgumentException(segment.path().getFileName() + " is not read directly");
    }
    return new DirectScan(segment, from);
  }

  /** The segment's bytes, at the file's offsets; read only what {@link #ensure} made readable. */
  public MemorySegment memory() {
    return memory;
  }

  /**
   * Makes {@code [0, to)} readable, waiting for the reads ahead to get there.
   *
   * @throws UncheckedIOException if a read fails
   */
  @Override
  public void ensure(long to) {
    long target = Math.min(memory.byteSize(), to);
    if (target <= filled) {
      if (target > wanted) {
        wanted = target;
        // Woken only once a whole request fits ahead again: one wake-up a request, not a record.
        if (readerWaiting && target + AHEAD_BYTES >= filled + REQUEST_BYTES) {
          LockSupport.unpark(readAhead);
        }
      }
      return;
    }
    waiter = Thread.currentThread();
    wanted = Math.max(wanted, target);
    LockSupport.unpark(readAhead);
    while (filled < target) {
      IOException failed = failure;
      if (failed != null) {
        throw new UncheckedIOException(
            "O_DIRECT read of " + name + " failed: " + failed.getMessage(), failed);
      }
      LockSupport.park(this);
    }
  }

  private void readAheadLoop(long start) {
    long size = memory.byteSize();
    long at = start;
    while (!closed && at < size) {
      long n = Math.min(REQUEST_BYTES, size - at);
      if (at + n > wanted + AHEAD_BYTES) {
        readerWaiting = true;
        if (at + n > wanted + AHEAD_BYTES && !closed) {
          LockSupport.park(this);
        }
        readerWaiting = false;
        continue;
      }
      try {
        long read = reader.read(at, memory.asSlice(at, n));
        // Past the end of the file the memory stays zero, as the file's tail reads.
        at = read < n ? size : at + n;
      } catch (IOException | RuntimeException e) {
        failure = e instanceof IOException io ? io : new IOException(e.toString(), e);
        LockSupport.unpark(waiter);
        return;
      }
      filled = at;
      LockSupport.unpark(waiter);
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
    closed = true;
    LockSupport.unpark(readAhead);
    boolean interrupted = false;
    while (true) {
      try {
        readAhead.join(); // its read in flight writes into the memory freed next
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    arena.close();
  }
}
