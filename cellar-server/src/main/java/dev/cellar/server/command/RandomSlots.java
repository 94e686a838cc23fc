package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random draws of a hash's or set's slots, for {@code HRANDFIELD}, {@code SRANDMEMBER} and {@code
 * SPOP}: members sit in dense slots ({@link dev.cellar.server.collection.Members}), so a uniform
 * slot is a uniform member.
 */
final class RandomSlots {
  private RandomSlots() {}

  /**
   * The count of {@code HRANDFIELD}, {@code SRANDMEMBER} or {@code ZRANDMEMBER} (argument 2),
   * checked as Redis does before it looks the key up: an integer from -(2^63 - 1) to 2^63 - 1, and
   * within half that either way when each draw is answered with two values ({@code WITHVALUES},
   * {@code WITHSCORES}).
   */
  static long count(Request r, boolean pairs) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long count = r.longValue(2);
    if (count == Long.MIN_VALUE) {
      throw new CommandError(
          "ERR value is out of range, value must between -9223372036854775807 and"
              + " 9223372036854775807");
    }
    if (pairs && (count < -(Long.MAX_VALUE / 2) || count > Long.MAX_VALUE / 2)) {
      throw new CommandError("ERR value is out of range");
    }
    return count;
  }

  /**
   * How many draws, repeats allowed, a negative {@code count} asks for: {@code -count}, refused up
   * front when their reply could not fit the heap's budget for one command ({@link ResultBudget}).
   * Without that a count of -(2^63 - 1) would keep the connection's event loop drawing until the
   * reply outgrew the clients' memory, minutes later; Redis stops when its client is to be closed.
   */
  static long repeats(long count, String command) {
    long n = -count;
    new ResultBudget(command).reserve(n, 0);
    return n;
  }

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
