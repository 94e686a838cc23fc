package dev.cellar.ipc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Random;

/**
 * The other process of {@link CrossProcessRingTest}: maps a ring file the test created, as a server
 * would, and either echoes every request frame onto the response ring ({@code echo}) or writes
 * numbered frames onto it until killed ({@code stream}), pausing now and then so that the test's
 * side sleeps on its futex.
 */
public final class RingPeer {
  private RingPeer() {}

  public static void main(String[] args) throws Exception {
    try (RingFile file = RingFile.open(Path.of(args[0]), IpcDescriptor.MAX_CAPACITY)) {
      Doorbell own = new Doorbell(java.lang.foreign.Arena.global().allocate(4, 4));
      Ring requests = file.requests(own);
      Ring responses = file.responses();
      file.state(IpcDescriptor.RING_ATTACHED);
      System.out.println("attached");
      System.out.flush();
      Random random = new Random(Long.parseLong(args[2]));
      if (args[1].equals("echo")) {
        echo(requests, responses, random);
      } else {
        stream(responses, random);
      }
    }
  }

  private static void echo(Ring requests, Ring responses, Random random) {
    while (true) {
      int at = requests.poll();
      if (at < 0) {
        requests.awaitFrame(10_000_000L);
        continue;
      }
      int length = requests.payloadLength();
      byte[] copy = requests.data().asSlice(at, length).toArray(ValueLayout.JAVA_BYTE);
      requests.release();
      if (random.nextInt(100) == 0) {
        sleep(random.nextInt(3)); // long enough for the test's side to go to sleep
      }
      int out;
      while ((out = responses.tryClaim(length)) < 0) {
        responses.awaitRoom(length, 10_000_000L);
      }
      MemorySegment.copy(MemorySegment.ofArray(copy), 0, responses.data(), out, length);
      responses.commit(IpcDescriptor.KIND_MESSAGE);
    }
  }

  /** Frames of {@code seq u64, length-8 bytes of (seq + i)}, forever. */
  private static void stream(Ring responses, Random random) {
    for (long seq = 0; ; seq++) {
      int length = 8 + random.nextInt(2000);
      int at;
      while ((at = responses.tryClaim(length)) < 0) {
        responses.awaitRoom(length, 10_000_000L);
      }
      MemorySegment data = responses.data();
      data.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seq);
      for (int i = 8; i < length; i++) {
        data.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seq + i));
      }
      responses.commit(IpcDescriptor.KIND_MESSAGE);
      if (random.nextInt(500) == 0) {
        sleep(1);
      }
    }
  }

  private static void sleep(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
