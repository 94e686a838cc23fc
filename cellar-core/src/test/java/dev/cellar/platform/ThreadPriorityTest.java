package dev.cellar.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The tests run on Linux with native access granted (the build's argLine), as the server does. */
class ThreadPriorityTest {

  @Test
  void lowersOnlyTheCallingThread() throws Exception {
    Integer before = ThreadPriority.currentNice();
    AtomicReference<Integer> lowered = new AtomicReference<>();
    AtomicReference<Boolean> result = new AtomicReference<>();
    Thread background =
        Thread.ofPlatform()
            .start(
                () -> {
                  result.set(ThreadPriority.lowerCurrentThread(Math.min(19, before + 7)));
                  lowered.set(ThreadPriority.currentNice());
                });
    background.join();
    assertTrue(result.get(), "setpriority refused");
    assertEquals(Math.min(19, before + 7), lowered.get());
    assertEquals(
        before, ThreadPriority.currentNice(), "the caller of the test must keep its priority");
  }

  @Test
  void zeroChangesNothingAndVirtualThreadsAreLeftAlone() throws Exception {
    Integer before = ThreadPriority.currentNice();
    assertTrue(ThreadPriority.lowerCurrentThread(0));
    assertEquals(before, ThreadPriority.currentNice());
    AtomicReference<Boolean> onVirtual = new AtomicReference<>();
    Thread.ofVirtual().start(() -> onVirtual.set(ThreadPriority.lowerCurrentThread(5))).join();
    assertFalse(onVirtual.get(), "a virtual thread has no kernel thread of its own to lower");
  }

  @Test
  void refusesValuesOutsideTheNiceRange() {
    assertThrows(IllegalArgumentException.class, () -> ThreadPriority.lowerCurrentThread(-1));
    assertThrows(IllegalArgumentException.class, () -> ThreadPriority.lowerCurrentThread(20));
  }
}
