package dev.cellar.bench.soak;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * When the hostile clients may act: in cycles of {@code cycleSeconds} counted from the start of the
 * load, from one second into each cycle until {@code quietSeconds} before its end. The cycles end
 * where the soak reads the live heap (a full collection every {@code --full-gc-seconds}), so every
 * hostile connection has been closed, and the server has released it, by the time the heap is
 * counted: the reading then measures what the hostile clients left behind, which is what a leak is,
 * and not the buffers the server rightly holds for a half-sent request at that moment (up to
 * maxmemory-clients, a quarter of the heap). Resident memory is read in the active part too.
 *
 * <p>Immutable; shared by all the hostile clients' threads.
 */
record CycleClock(long beginNanos, long cycleSeconds, long quietSeconds) {
  CycleClock {
    if (cycleSeconds < quietSeconds + 5) {
      throw new IllegalArgumentException(
          "hostile cycles of "
              + cycleSeconds
              + " s leave no active time; use --full-gc-seconds of at least "
              + (quietSeconds + 5));
    }
  }

  private long elapsedNanos() {
    return System.nanoTime() - beginNanos;
  }

  /** The cycle now running, from 0. */
  long cycle() {
    return elapsedNanos() / TimeUnit.SECONDS.toNanos(cycleSeconds);
  }

  /** When the active part of the current cycle ends (a {@link System#nanoTime()} value). */
  long activeEndNanos() {
    return beginNanos
        + cycle() * TimeUnit.SECONDS.toNanos(cycleSeconds)
        + TimeUnit.SECONDS.toNanos(cycleSeconds - quietSeconds);
  }

  boolean active() {
    long into = elapsedNanos() % TimeUnit.SECONDS.toNanos(cycleSeconds);
    return into >= TimeUnit.SECONDS.toNanos(1)
        && into < TimeUnit.SECONDS.toNanos(cycleSeconds - quietSeconds);
  }

  /**
   * Sleeps until the active part of a cycle, or until {@code stopping}; returns false if stopping.
   */
  boolean awaitActive(BooleanSupplier stopping) {
    while (!stopping.getAsBoolean()) {
      if (active()) {
        return true;
      }
      if (!sleep(100)) {
        return false;
      }
    }
    return false;
  }

  /** Sleeps; false if interrupted. */
  /**
   * Runs {@code once} at most once per cycle, in each cycle's active part, until {@code stopping}:
   * for the patterns that make one large attempt a cycle (stalled and trickled MSETs).
   */
  void eachActiveCycle(BooleanSupplier stopping, Runnable once) {
    long lastCycle = -1;
    while (awaitActive(stopping)) {
      long cycle = cycle();
      if (cycle == lastCycle) {
        sleep(200);
        continue;
      }
      lastCycle = cycle;
      once.run();
    }
  }

  /**
   * Runs {@code attempt} {@code perSecond} times a second, in the cycles' active parts, until
   * {@code stopping}.
   */
  void atRate(BooleanSupplier stopping, int perSecond, Runnable attempt) {
    while (awaitActive(stopping)) {
      long next = System.nanoTime() + 1_000_000_000L / perSecond;
      attempt.run();
      long wait = next - System.nanoTime();
      if (wait > 0 && !sleep(wait / 1_000_000)) {
        return;
      }
    }
  }

  static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
