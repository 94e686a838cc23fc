package dev.cellar.server.command;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Random draws of a hash's or set's slots, for {@code HRANDFIELD}, {@code SRANDMEMBER} and {@code
 * SPOP}: members sit in dense slots ({@link dev.cellar.server.collection.Members}), so a uniform
 * slot is a uniform member.
 */
final class RandomSlots {
  private RandomSlots() {}

  /** One uniform slot of {@code size} (more than 0). */
  static long one(long size) {
    return ThreadLocalRandom.current().nextLong(size);
  }

  /**
   * {@code count} distinct slots of {@code size}, or all of them in order when {@code count} is at
   * least {@code size} (as Redis returns the whole collection then). Floyd's algorithm: {@code
   * count} draws, whatever the size.
   */
  static long[] distinct(long size, long count) {
    new ResultBudget("a random draw").reserve(Math.min(size, count), 16);
    if (count >= size) {
      long[] all = new long[(int) size];
      for (int i = 0; i < all.length; i++) {
        all[i] = i;
      }
      return all;
    }
    java.util.LinkedHashSet<Long> chosen = new java.util.LinkedHashSet<>();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (long j = size - count; j < size; j++) {
      long t = random.nextLong(j + 1);
      if (!chosen.add(t)) {
        chosen.add(j);
      }
    }
    long[] out = new long[chosen.size()];
    int i = 0;
    for (long slot : chosen) {
      out[i++] = slot;
    }
    return out;
  }
}
