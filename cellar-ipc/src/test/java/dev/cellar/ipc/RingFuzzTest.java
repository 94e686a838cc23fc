package dev.cellar.ipc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The consumer of a ring on anything a hostile producer can write: the input is the ring's data (a
 * 4 KiB ring, the input repeated to fill it) and, in its first 16 bytes, the head and tail
 * positions. Polling and releasing until the ring is empty either reports an {@link IpcException}
 * or hands out frames that lie inside the data with a kind a reader knows; nothing else escapes,
 * and it ends. Seeds in {@code RingFuzzTestInputs}; docs/fuzzing.md says how to fuzz.
 */
class RingFuzzTest {
  private static final int CAPACITY = 4096;

  @FuzzTest(maxDuration = "15s")
  void pollsOrRefuses(byte[] input) {
    if (input.length < 16) {
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment control = arena.allocate(IpcDescriptor.CONTROL_LENGTH, 128);
      MemorySegment data = arena.allocate(CAPACITY, 4096);
      MemorySegment in = MemorySegment.ofArray(input);
      long head = in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) & 0xFFFF_FFFFL;
      long tail = head + (in.get(ValueLayout.JAVA_LONG_UNALIGNED, 8) & 0x1_FFFF);
      control.set(ValueLayout.JAVA_LONG, IpcDescriptor.HEAD_OFFSET, head);
      control.set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, tail);
      int body = input.length - 16;
      if (body > 0) {
        for (int at = 0; at < CAPACITY; at += body) {
          MemorySegment.copy(in, 16, data, at, Math.min(body, CAPACITY - at));
        }
      }
      try {
        Ring ring = new Ring(control, data, new Doorbell(arena.allocate(4, 4)));
        for (int frames = 0; ; frames++) {
          int at = ring.poll();
          if (at < 0) {
            break;
          }
          assertTrue(
              at >= IpcDescriptor.FRAME_HEADER_LENGTH && at + ring.payloadLength() <= CAPACITY);
          assertTrue(ring.payloadLength() <= ring.maxPayload());
          assertTrue(
              ring.frameKind() == IpcDescriptor.KIND_MESSAGE
                  || ring.frameKind() == IpcDescriptor.KIND_PART);
          ring.release();
          assertTrue(frames <= CAPACITY / IpcDescriptor.FRAME_HEADER_LENGTH, "it ends");
        }
      } catch (IpcException refused) {
        // the other side's bytes broke a rule: the connection would end here
      }
    }
  }
}
