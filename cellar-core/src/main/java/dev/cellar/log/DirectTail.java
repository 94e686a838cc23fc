package dev.cellar.log;

import dev.cellar.io.DirectAppender;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The write-out of a segment appended with O_DIRECT (see {@link Segment}, "Appends with O_DIRECT"):
 * what of the appender's memory has reached the file, and whether the memory is the file's mapping
 * yet.
 *
 * <h2>Concurrency</h2>
 *
 * Write-outs come from the group commit, the maintenance agent sealing the segment, close and the
 * log writer's reservations (zero-filled logs): they are serialised on this object, which keeps
 * {@link #writtenOut} with them. The memory below the segment's end never changes once written, so
 * a block written twice (the last, partial one, each time the tail has grown) holds the same
 * records each time, plus more; bytes past the end may be a record being copied in, which the next
 * write-out writes again.
 */
final class DirectTail {
  private final DirectAppender appender;

  /** How far appends have been written out; guarded by this. */
  private long writtenOut;

  /** Whether the memory is a mapping of the file, after {@link #mapFile}. */
  private volatile boolean fileMapped;

  DirectTail(DirectAppender appender, long writtenOut) {
    this.appender = appender;
    this.writtenOut = writtenOut;
  }

  /** Where appends are copied: the appender's memory, at the file's offsets. */
  MemorySegment memory() {
    return appender.memory();
  }

  /** Writes what lies between the last write-out and {@code end} to the file. */
  synchronized void writeOut(long end) throws IOException {
    if (end > writtenOut) {
      appender.writeOut(writtenOut, end);
      writtenOut = end;
    }
  }

  /** Writes the blocks covering {@code [from, to)} (zeros past the tail: a reservation). */
  synchronized void writeRange(long from, long to) throws IOException {
    appender.writeOut(from, to);
  }

  /** Puts {@code header} at the memory's start and writes it (and its block) to the file. */
  synchronized void writeHeader(MemorySegment header) throws IOException {
    MemorySegment.copy(header, 0, appender.memory(), 0, header.byteSize());
    appender.writeOut(0, header.byteSize());
  }

  /**
   * Once the file holds every byte of the memory: reads it from the file from now on, and gives the
   * memory back. If the remap fails the memory stays, correct but resident.
   */
  void mapFile() {
    if (!fileMapped) {
      fileMapped = appender.mapFile();
    }
  }

  /** Whether the memory is the file's mapping (a hint that drops its pages may be given). */
  boolean fileMapped() {
    return fileMapped;
  }

  void close() {
    appender.close();
  }
}
