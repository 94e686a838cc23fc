package dev.cellar.fory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Presents a {@link MemorySegment} to Fory as a {@link MemoryBuffer}: in place when the segment is
 * a writable view of a {@code byte[]}, through one bulk copy to the heap otherwise.
 *
 * <p>Native segments, Cellar's log among them, are copied although Fory could read them where they
 * lie (a {@code MemoryBuffer} over {@link MemorySegment#asByteBuffer()}). Fory 1.6 on JDK 25 reads
 * off-heap memory through byte-buffer {@code VarHandle}s, one checked access per field, and
 * measured slower that way than after one copy: decoding a 114-byte user took 180-210 ns of CPU in
 * place and 145-175 ns copied; a 2 KB one 2.3-2.8 us in place and 2.0-2.3 us copied (2 cores,
 * thread CPU time, the range over three JVMs of each one's best of five rounds). The copy is one
 * {@code memcpy}; Fory's per-field reads from a heap array are plain array accesses. Revisit when
 * Fory reads memory segments directly.
 *
 * <p>A read-only segment over a {@code byte[]} hides its array, so Fory copies it (once) too.
 */
final class SegmentInput {
  private SegmentInput() {}

  static MemoryBuffer of(MemorySegment segment) {
    if (segment.byteSize() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a Fory value is at most " + Integer.MAX_VALUE + " bytes, got " + segment.byteSize());
    }
    if (segment.heapBase().orElse(null) instanceof byte[]) {
      // A heap buffer over the array itself; Fory reads it without copying.
      return MemoryBuffer.fromByteBuffer(segment.asByteBuffer());
    }
    return MemoryBuffer.fromByteArray(segment.toArray(ValueLayout.JAVA_BYTE));
  }
}
