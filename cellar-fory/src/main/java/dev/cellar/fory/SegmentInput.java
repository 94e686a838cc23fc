package dev.cellar.fory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Presents a {@link MemorySegment} to Fory as a {@link MemoryBuffer}, in place when Fory can
 * address the memory and through one copy when it cannot.
 *
 * <p>Fory reads a {@code MemoryBuffer} over a heap array or a native address. A segment offers
 * both through {@link MemorySegment#asByteBuffer()}, and Fory's {@code fromByteBuffer} then reads:
 *
 * <ul>
 *   <li>native and mapped segments (Cellar's log, read-only or not) in place, at their address;
 *   <li>writable segments over a {@code byte[]} in place, in the array;
 *   <li>read-only segments over a {@code byte[]} after one copy (made by Fory), since a read-only
 *       buffer hides its array;
 *   <li>segments over other arrays ({@code long[]}...), which have no byte buffer view, after one
 *       copy made here.
 * </ul>
 *
 * <p>The {@code MemoryBuffer} holds the {@code ByteBuffer}, which holds the segment's scope; it is
 * used only during {@link ForyCodec#decode}, while the caller guarantees the segment is alive.
 */
final class SegmentInput {
  private SegmentInput() {}

  static MemoryBuffer of(MemorySegment segment) {
    if (segment.byteSize() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a Fory value is at most " + Integer.MAX_VALUE + " bytes, got " + segment.byteSize());
    }
    if (segment.isNative() || segment.heapBase().orElse(null) instanceof byte[]) {
      return MemoryBuffer.fromByteBuffer(segment.asByteBuffer());
    }
    try {
      // A read-only segment hides its array from heapBase(); over a byte[] it still has a view.
      return MemoryBuffer.fromByteBuffer(segment.asByteBuffer());
    } catch (UnsupportedOperationException noByteView) {
      return MemoryBuffer.fromByteArray(segment.toArray(ValueLayout.JAVA_BYTE));
    }
  }
}
