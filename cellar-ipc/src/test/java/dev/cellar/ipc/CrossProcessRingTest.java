package dev.cellar.ipc;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rings between two real processes: this JVM and a child ({@link RingPeer}) mapping the same file.
 * Round trips whose sides sleep on futexes in between (a lost wake-up would hang a round trip past
 * its timeout), and a child killed with SIGKILL in the middle of writing frames: every frame it
 * published is whole, nothing half-written is ever seen, and its death is noticed.
 */
class CrossProcessRingTest {
  @TempDir Path dir;

  private Process start(Path ring, String mode, long seed) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RingPeer.class.getName());
    command.add(ring.toString());
    command.add(mode);
    command.add(Long.toString(seed));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    assertEquals("attached", out.readLine(), "the child mapped the ring");
    return p;
  }

  @Test
  void roundTripsBetweenProcessesLoseNoWakeUp() throws Exception {
    Path path = dir.resolve("echo.ring");
    try (RingFile file = RingFile.create(path, 64 * 1024, ProcessIdentity.current())) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
      Process child = start(path, "echo", 3);
      try (Arena arena = Arena.ofConfined()) {
        Ring requests = file.requests(new Doorbell(arena.allocate(4, 4)));
        Ring responses = file.responses();
        Random random = new Random(5);
        for (int i = 0; i < 20_000; i++) {
          int length = 1 + random.nextInt(i % 100 == 0 ? requests.maxPayload() : 200);
          byte[] sent = new byte[length];
          random.nextBytes(sent);
          int at = requests.tryClaim(length);
          assertTrue(at >= 0, "one request at a time always fits");
          MemorySegment.copy(MemorySegment.ofArray(sent), 0, requests.data(), at, length);
          requests.commit(IpcDescriptor.KIND_MESSAGE);
          int got;
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while ((got = responses.poll()) < 0) {
            assertTrue(System.nanoTime() < deadline, "round trip " + i + " never came back");
            responses.awaitFrame(TimeUnit.MILLISECONDS.toNanos(100));
          }
          assertArrayEquals(
              sent,
              responses
                  .data()
                  .asSlice(got, responses.payloadLength())
                  .toArray(ValueLayout.JAVA_BYTE),
              "round trip " + i);
          responses.release();
        }
      } finally {
        child.destroyForcibly().waitFor();
      }
    }
  }

  @Test
  void aProducerKilledMidFrameLeavesOnlyWholeFramesAndIsSeenDead() throws Exception {
    for (long seed = 1; seed <= 3; seed++) {
      Path path = dir.resolve("stream-" + seed + ".ring");
      try (RingFile file = RingFile.create(path, 16 * 1024, ProcessIdentity.current())) {
        Process child = start(path, "stream", seed);
        ProcessIdentity peer =
            new ProcessIdentity(
                child.pid(),
                child.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L));
        Ring responses = file.responses();
        Random random = new Random(seed);
        long killAt = 2_000 + random.nextInt(20_000);
        long expected = 0;
        boolean killed = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
          int at = responses.poll();
          if (at < 0) {
            if (killed) {
              break; // the child is dead and everything it published has been read
            }
            responses.awaitFrame(TimeUnit.MILLISECONDS.toNanos(10));
            assertTrue(System.nanoTime() < deadline, "the child stopped producing");
            continue;
          }
          int length = responses.payloadLength();
          MemorySegment data = responses.data();
          assertEquals(expected, data.get(ValueLayout.JAVA_LONG_UNALIGNED, at), "frames in order");
          for (int i = 8; i < length; i++) {
            assertEquals((byte) (expected + i), data.get(ValueLayout.JAVA_BYTE, at + i));
          }
          responses.release();
          expected++;
          if (expected == killAt) {
            assertTrue(peer.alive());
            child.destroyForcibly().waitFor(); // SIGKILL, wherever it is in a frame
            killed = true;
          }
        }
        assertFalse(peer.alive(), "the dead producer is seen dead");
        assertTrue(expected >= killAt);
      }
    }
  }
}
