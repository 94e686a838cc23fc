package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The yield rule: a low-priority pass gives way to every other holder, and only to them. */
class MaintenanceLockTest {
  private final MaintenanceLock lock = new MaintenanceLock();

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void anIdlePassSeesAWaiterAndYields() throws Exception {
    CountDownLatch passHolds = new CountDownLatch(1);
    AtomicBoolean yielded = new AtomicBoolean();
    Thread pass =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    lock.holdForIdlePass(
                        () -> {
                          passHolds.countDown();
                          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                          while (!lock.othersWaiting() && System.nanoTime() < deadline) {
                            Thread.onSpinWait();
                          }
                          yielded.set(lock.othersWaiting());
                          return 1L;
                        },
                        0L);
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
    assertTrue(passHolds.await(10, TimeUnit.SECONDS));
    assertTrue(lock.idlePassRunning());
    int got = lock.hold(() -> 42); // waits for the pass, which sees it waiting and ends
    pass.join(10_000);
    assertEquals(42, got);
    assertTrue(yielded.get(), "the pass saw a waiter");
    assertFalse(lock.othersWaiting(), "the count is back to zero");
    assertFalse(lock.idlePassRunning());
  }

  @Test
  void anIdlePassDoesNotStartWhileSomeoneWaits() throws Exception {
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    lock.hold(
                        () -> {
                          holding.countDown();
                          awaitQuietly(release);
                          return null;
                        });
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
    assertTrue(holding.await(10, TimeUnit.SECONDS));
    // A second holder queues up behind the first: it counts as waiting.
    Thread waiter =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    lock.hold(() -> null);
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!lock.othersWaiting() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    AtomicInteger ran = new AtomicInteger();
    long result = lock.holdForIdlePass(() -> (long) ran.incrementAndGet(), -1L);
    assertEquals(-1L, result, "the pass gave way at once");
    assertEquals(0, ran.get());
    release.countDown();
    holder.join(10_000);
    waiter.join(10_000);
  }

  @Test
  void aHolderCallingAnotherHolderDoesNotCountAsWaiting() throws Exception {
    boolean[] waitingInside = new boolean[1];
    lock.hold(
        () -> {
          lock.hold(
              () -> {
                waitingInside[0] = lock.othersWaiting();
                return null;
              });
          return null;
        });
    assertFalse(waitingInside[0], "reentry would make an idle pass yield to itself");
  }

  @Test
  void sealingIsLeftToARunningIdlePass() throws Exception {
    CountDownLatch passHolds = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread pass =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    lock.holdForIdlePass(
                        () -> {
                          passHolds.countDown();
                          awaitQuietly(release);
                          return 0L;
                        },
                        0L);
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
    assertTrue(passHolds.await(10, TimeUnit.SECONDS));
    AtomicBoolean sealed = new AtomicBoolean();
    lock.holdUnlessIdlePass(() -> sealed.set(true)); // returns at once: no waiting behind it
    assertFalse(sealed.get());
    release.countDown();
    pass.join(10_000);
    lock.holdUnlessIdlePass(() -> sealed.set(true));
    assertTrue(sealed.get(), "with no pass running, sealing runs");
  }
}
