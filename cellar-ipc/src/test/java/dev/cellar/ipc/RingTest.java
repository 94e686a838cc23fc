package dev.cellar.ipc;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The ring against a queue: random frame sizes (padding at the end of the data, frames of the
 * largest payload, empty ones), produced and consumed by one thread in a random interleaving, on
 * seeded runs. And what a consumer does with a producer that writes garbage.
 */
class RingTest {
  private static final int CAPACITY = 4096;

  private static Ring ring(Arena arena) {
    MemorySegment control = arena.allocate(IpcDescriptor.CONTROL_LENGTH, 128);
    MemorySegment data = arena.allocate(CAPACITY, 4096);
    Doorbell bell = new Doorbell(arena.allocate(4, 4));
    return new Ring(control, data, bell);
  }

  @Test
  void framesComeOutInOrderWithTheirBytesOverManyWrapsOnSeededRuns() {
    for (long seed = 1; seed <= 20; seed++) {
      try (Arena arena = Arena.ofConfined()) {
        Ring producer = ring(arena);
        run(new Random(seed), producer, consumerOf(arena, producer));
      }
    }
  }

  private static void run(Random random, Ring producer, Ring consumer) {
    ArrayDeque<byte[]> expected = new ArrayDeque<>();
    long sent = 0;
    long received = 0;
    for (int step = 0; step < 20_000; step++) {
      if (random.nextInt(3) != 0) {
        int length =
            switch (random.nextInt(10)) {
              case 0 -> 0;
              case 1 -> producer.maxPayload();
              default -> random.nextInt(300);
            };
        byte[] payload = new byte[length];
        random.nextBytes(payload);
        int at = producer.tryClaim(length);
        if (at < 0) {
          assertTrue(producer.pending() > 0, "refused only when not empty");
          continue;
        }
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, producer.data(), at, length);
        producer.commit(IpcDescriptor.KIND_MESSAGE);
        expected.add(payload);
        sent++;
      } else {
        int polled = random.nextInt(4);
        for (int i = 0; i < polled; i++) {
          int at = consumer.poll();
          if (at < 0) {
            assertTrue(expected.isEmpty(), "nothing published is lost");
            break;
          }
          byte[] want = expected.poll();
          assertNotNull(want, "a frame nobody sent");
          assertEquals(want.length, consumer.payloadLength());
          assertArrayEquals(
              want, consumer.data().asSlice(at, want.length).toArray(ValueLayout.JAVA_BYTE));
          received++;
        }
        consumer.release();
      }
    }
    while (consumer.poll() >= 0) {
      expected.poll();
      received++;
    }
    assertEquals(sent, received);
  }

  @Test
  void framesAppendedAsTheyGoComeOutWholeAndInOrderAcrossWraps() {
    try (Arena arena = Arena.ofConfined()) {
      Ring producer = ring(arena);
      Ring consumer = consumerOf(arena, producer);
      Random random = new Random(9);
      ArrayDeque<byte[]> expected = new ArrayDeque<>();
      for (int step = 0; step < 20_000; step++) {
        if (random.nextBoolean()) {
          int min = random.nextInt(200);
          int room = producer.open(min);
          if (room < 0) {
            assertTrue(producer.pending() > 0);
          } else {
            assertTrue(room >= min && room <= producer.maxPayload());
            int length = min + random.nextInt(room - min + 1);
            byte[] payload = new byte[length];
            random.nextBytes(payload);
            for (int at = 0; at < length; ) { // in pieces, as a reply writer appends
              int piece = Math.min(length - at, 1 + random.nextInt(50));
              MemorySegment.copy(
                  MemorySegment.ofArray(payload), at, producer.data(), producer.appendAt(), piece);
              producer.appended(piece);
              at += piece;
            }
            assertThrows(IllegalArgumentException.class, () -> producer.appended(room + 1));
            producer.close(IpcDescriptor.KIND_MESSAGE);
            expected.add(payload);
          }
        } else {
          for (int at; (at = consumer.poll()) >= 0; ) {
            byte[] want = expected.poll();
            assertNotNull(want);
            assertArrayEquals(
                want,
                consumer
                    .data()
                    .asSlice(at, consumer.payloadLength())
                    .toArray(ValueLayout.JAVA_BYTE));
          }
          consumer.release();
        }
      }
    }
  }

  @Test
  void aFullRingRefusesAndTakesAgainOnceReleased() {
    try (Arena arena = Arena.ofConfined()) {
      Ring producer = ring(arena);
      Ring consumer = consumerOf(arena, producer);
      int frames = 0;
      while (producer.tryClaim(100) >= 0) {
        producer.commit(IpcDescriptor.KIND_MESSAGE);
        frames++;
      }
      assertEquals(CAPACITY / IpcDescriptor.frameLength(100), frames);
      assertFalse(producer.awaitRoom(100, 1_000_000), "no room appears by itself");
      assertTrue(consumer.poll() >= 0);
      consumer.release();
      assertTrue(producer.tryClaim(100) >= 0);
    }
  }

  @Test
  void aPayloadOverHalfTheRingIsRefusedWithTheLimit() {
    try (Arena arena = Arena.ofConfined()) {
      Ring producer = ring(arena);
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> producer.tryClaim(producer.maxPayload() + 1));
      assertTrue(e.getMessage().contains(Integer.toString(producer.maxPayload())), e.getMessage());
    }
  }

  @Test
  void garbageFromTheProducerIsReportedNeverReadPast() {
    try (Arena arena = Arena.ofConfined()) {
      // A tail more than a ring ahead of the head.
      Ring a = ring(arena);
      a.control().set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, CAPACITY + 8L);
      assertThrows(IpcException.class, () -> consumerOf(arena, a).poll());
      // A frame length past what was published.
      Ring b = ring(arena);
      b.data().set(ValueLayout.JAVA_INT, 0, 4000);
      b.data().set(ValueLayout.JAVA_INT, 4, IpcDescriptor.KIND_MESSAGE);
      b.control().set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, 64L);
      assertThrows(IpcException.class, () -> consumerOf(arena, b).poll());
      // A negative length, an unknown kind, padding that stops short of the end.
      for (int[] header : new int[][] {{-8, 2}, {8, 99}, {8, IpcDescriptor.KIND_PADDING}}) {
        Ring c = ring(arena);
        c.data().set(ValueLayout.JAVA_INT, 0, header[0]);
        c.data().set(ValueLayout.JAVA_INT, 4, header[1]);
        c.control().set(ValueLayout.JAVA_LONG, IpcDescriptor.TAIL_OFFSET, 64L);
        IpcException e = assertThrows(IpcException.class, () -> consumerOf(arena, c).poll());
        assertTrue(e.getMessage().contains("offset 0"), e.getMessage());
      }
      // Random headers and tails: an exception or a frame inside the ring, nothing else.
      Random random = new Random(7);
      for (int i = 0; i < 5_000; i++) {
        Ring d = ring(arena);
        for (int j = 0; j < 16; j++) {
          d.data().set(ValueLayout.JAVA_INT, 8L * random.nextInt(CAPACITY / 8), random.nextInt());
          d.data()
              .set(ValueLayout.JAVA_INT, 4 + 8L * random.nextInt(CAPACITY / 8), random.nextInt(5));
        }
        d.control()
            .set(
                ValueLayout.JAVA_LONG,
                IpcDescriptor.TAIL_OFFSET,
                (long) random.nextInt(2 * CAPACITY));
        try {
          Ring consumer = consumerOf(arena, d);
          for (int at; (at = consumer.poll()) >= 0; ) {
            assertTrue(at + consumer.payloadLength() <= CAPACITY);
          }
        } catch (IpcException expected) {
          // reported
        }
      }
    }
  }

  /** A second view of {@code ring}'s memory, as the other process would map it. */
  private static Ring consumerOf(Arena arena, Ring ring) {
    return new Ring(ring.control(), ring.data(), new Doorbell(arena.allocate(4, 4)));
  }
}
