package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code CLIENT NO-EVICT}: a protected client is never the one maxmemory-clients disconnects. */
class ClientMemoryNoEvictTest {
  private final AtomicInteger bigClosed = new AtomicInteger();
  private final AtomicInteger smallClosed = new AtomicInteger();

  @Test
  void theLargestClientIsEvictedUnlessProtected() {
    ClientMemory memory = new ClientMemory(() -> 100);
    ClientMemory.Account big = memory.open("big", bigClosed::incrementAndGet);
    ClientMemory.Account small = memory.open("small", smallClosed::incrementAndGet);
    assertTrue(memory.set(big, 60));
    assertTrue(memory.set(small, 50), "the larger client makes room");
    assertEquals(1, bigClosed.get());
    assertEquals(1, memory.evictions());
  }

  @Test
  void aProtectedLargestClientStaysAndTheAskingClientIsRefused() {
    ClientMemory memory = new ClientMemory(() -> 100);
    ClientMemory.Account big = memory.open("big", bigClosed::incrementAndGet);
    ClientMemory.Account small = memory.open("small", smallClosed::incrementAndGet);
    big.noEvict(true);
    assertTrue(memory.set(big, 60));
    assertFalse(memory.set(small, 50), "nobody else may be evicted: the growth is refused");
    assertEquals(0, bigClosed.get());
    assertEquals(0, small.bytes(), "the refused growth is not counted");
    big.noEvict(false);
    assertTrue(memory.set(small, 50));
    assertEquals(1, bigClosed.get(), "unprotected again, it is the one to go");
  }
}
