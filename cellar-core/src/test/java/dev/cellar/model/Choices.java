package dev.cellar.model;

import java.util.SplittableRandom;

/**
 * Where a model run's decisions come from: a seeded random generator for the JUnit driver, the
 * fuzzer's bytes for the Jazzer one. {@link Op#next} and {@link Workload#draw} are written against
 * this alone, so both drivers run the same operations through the same interpreter.
 */
public interface Choices {
  /** A number in {@code [0, bound)}; {@code bound} is at least 1. */
  int nextInt(int bound);

  /** Whether the run may go on drawing operations (the fuzzer's input can run out). */
  boolean hasMore();

  default boolean nextBoolean() {
    return nextInt(2) == 1;
  }

  /** Seeded choices that never run out. */
  static Choices seeded(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    return new Choices() {
      @Override
      public int nextInt(int bound) {
        return random.nextInt(bound);
      }

      @Override
      public boolean hasMore() {
        return true;
      }
    };
  }
}
