package dev.cellar.ipc;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DoorbellTest {
  @Test
  void onLinuxTheFutexIsLinked() {
    boolean linux = System.getProperty("os.name").toLowerCase().contains("linux");
    boolean known = System.getProperty("os.arch").matches("amd64|x86_64|aarch64");
    assertEquals(linux && known, Futex.available(), "the test JVM grants native access");
  }

  @Test
  void anIdleWaiterSleepsWithoutCpuAndARingWakesItAtOnce() throws Exception {
    try (Arena arena = Arena.ofShared()) {
      Doorbell bell = new Doorbell(arena.allocate(4, 4));
      AtomicBoolean work = new AtomicBoolean();
      AtomicLong cpu = new AtomicLong(-1);
      AtomicLong wokenAfter = new AtomicLong(-1);
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      Thread waiter =
          Thread.ofPlatform()
              .start(
                  () -> {
                    long before = threads.getCurrentThreadCpuTime();
                    assertTrue(bell.await(work::get, TimeUnit.SECONDS.toNanos(30)));
                    cpu.set(threads.getCurrentThreadCpuTime() - before);
                  });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!bell.sleeping()) {
        assertTrue(System.nanoTime() < deadline, "the waiter went to sleep");
        Thread.sleep(1);
      }
      Thread.sleep(500);
      work.set(true);
      long rung = System.nanoTime();
      bell.ring();
      waiter.join(TimeUnit.SECONDS.toMillis(5));
      wokenAfter.set(System.nanoTime() - rung);
      assertFalse(waiter.isAlive(), "woken");
      if (Futex.available()) {
        assertTrue(
            cpu.get() < TimeUnit.MILLISECONDS.toNanos(100),
            "half a second asleep cost " + cpu.get() / 1000 + " us of CPU");
      }
      assertFalse(bell.sleeping(), "the ring cleared the word");
    }
  }

  @Test
  void pingPongWithPausesLosesNoWakeUp() throws Exception {
    try (Arena arena = Arena.ofShared()) {
      Doorbell toB = new Doorbell(arena.allocate(4, 4));
      Doorbell toA = new Doorbell(arena.allocate(4, 4));
      AtomicLong ball = new AtomicLong();
      int rounds = 20_000;
      Thread b =
          Thread.ofPlatform()
              .start(
                  () -> {
                    Random random = new Random(2);
                    for (long i = 1; i <= rounds; i++) {
                      long want = 2 * i - 1;
                      assertTrue(toB.await(() -> ball.get() == want, TimeUnit.SECONDS.toNanos(10)));
                      if (random.nextInt(1000) == 0) {
                        sleepQuietly(2);
                      }
                      ball.set(2 * i);
                      toA.ring();
                    }
                  });
      Random random = new Random(1);
      for (long i = 1; i <= rounds; i++) {
        ball.set(2 * i - 1);
        toB.ring();
        long want = 2 * i;
        if (random.nextInt(1000) == 0) {
          sleepQuietly(2);
        }
        assertTrue(toA.await(() -> ball.get() == want, TimeUnit.SECONDS.toNanos(10)), "round " + i);
      }
      b.join();
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aWaitTimesOutWhenNothingComes() {
    try (Arena arena = Arena.ofConfined()) {
      Doorbell bell = new Doorbell(arena.allocate(4, 4));
      long start = System.nanoTime();
      assertFalse(bell.await(() -> false, TimeUnit.MILLISECONDS.toNanos(50)));
      assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50));
    }
  }
}
