package dev.cellar.ipc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * A word in shared memory that an idle thread sleeps on and that the other side rings after
 * publishing work. Ringing costs a load and a branch while the sleeper is awake: a system call is
 * made only when the word says someone sleeps, so a busy pair of processes makes none per message.
 *
 * <h2>Protocol</h2>
 *
 * The word is 0 while nobody sleeps and 1 once a waiter is about to. A waiter first spins and
 * yields (a busy peer answers within microseconds, far sooner than a sleep and a wake-up; see
 * {@link #await}), then stores 1, looks once more at what it waits for, and only then sleeps on the
 * word while it holds 1. A ringer publishes its work, then (after a full fence) reads the word, and
 * if it is 1 swaps it to 0 and wakes the sleepers. The fences make this Dekker's pattern: either
 * the waiter's second look sees the work, or the ringer's read sees the 1; a wake-up cannot be
 * lost. Several ringers may race on one word (every client of a server agent rings the agent's);
 * the swap lets one of them make the call. Waits are bounded, so a waiter also looks again after
 * its timeout whatever happens, which is how it notices a peer that died without ringing.
 */
public final class Doorbell {
  private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();

  /** How long a waiter spins before it starts yielding its core. */
  static final long SPIN_NANOS = 2_000;

  /** How long a waiter keeps looking (spinning, then yielding) before it sleeps. */
  static final long YIELD_NANOS = 50_000;

  private final MemorySegment word;

  /** A doorbell on the 4-byte word at the start of {@code word} (4-byte aligned, shared). */
  public Doorbell(MemorySegment word) {
    this.word = word.asSlice(0, 4);
  }

  /**
   * Wakes whoever sleeps on this doorbell. Call after publishing (a release store of the work);
   * this method supplies the full fence the protocol needs.
   */
  public void ring() {
    VarHandle.fullFence();
    if ((int) WORD.getVolatile(word, 0L) != 0 && WORD.compareAndSet(word, 0L, 1, 0)) {
      Futex.wakeAll(word);
    }
  }

  /**
   * Waits until {@code ready} holds or {@code timeoutNanos} has passed; returns whether {@code
   * ready} held. Three phases, as Aeron's back-off idle strategy has them: a few microseconds of
   * spinning (a peer on another core answers within them, with no system call on either side); then
   * yielding the core until {@link #YIELD_NANOS} (a peer that shares this core, as on a machine
   * with fewer cores than busy threads, gets to run and answer: spinning there held the core the
   * answer needed, and round trips took 120 µs instead of 1); then sleeping on the futex.
   */
  public boolean await(BooleanSupplier ready, long timeoutNanos) {
    long start = System.nanoTime();
    long spinUntil = start + Math.min(SPIN_NANOS, timeoutNanos);
    long yieldUntil = start + Math.min(YIELD_NANOS, timeoutNanos);
    int spins = 0;
    while (true) {
      if (ready.getAsBoolean()) {
        return true;
      }
      if ((++spins & 15) == 0) {
        long now = System.nanoTime();
        if (now - yieldUntil >= 0) {
          break;
        }
        if (now - spinUntil >= 0) {
          Thread.yield();
          continue;
        }
      }
      Thread.onSpinWait();
    }
    while (true) {
      long left = start + timeoutNanos - System.nanoTime();
      if (left <= 0) {
        return ready.getAsBoolean();
      }
      WORD.setVolatile(word, 0L, 1);
      if (ready.getAsBoolean()) {
        WORD.compareAndSet(word, 0L, 1, 0);
        return true;
      }
      Futex.await(word, 1, left);
      if (ready.getAsBoolean()) {
        return true;
      }
    }
  }

  /** Whether a waiter has said it sleeps (for tests and statistics). */
  public boolean sleeping() {
    return (int) WORD.getVolatile(word, 0L) != 0;
  }
}
