package dev.cellar.server.command;

import dev.cellar.Cellar;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Function;

/**
 * Reads and writes of whole values for the commands that are not on the GET/SET fast path. Every
 * read-modify-write goes through these while its key stripe is locked (see {@link KeyLocks}).
 */
final class Values {
  private Values() {}

  private static final Function<MemorySegment, byte[]> COPY = v -> v.toArray(ValueLayout.JAVA_BYTE);

  /** The value of {@code key}, copied, or null. */
  static byte[] get(Cellar store, MemorySegment key) {
    return store.read(key, COPY);
  }

  /** A value and its expiry read together (a value rewritten with its TTL kept). */
  record Current(byte[] value, long expireAt) {}

  /** The value and expiry of {@code key}, or null; both read under the caller's stripe lock. */
  static Current current(Cellar store, MemorySegment key) {
    long expireAt = store.expiryOf(key);
    if (expireAt == Cellar.ABSENT) {
      return null;
    }
    byte[] value = get(store, key);
    return value == null ? null : new Current(value, expireAt);
  }

  /**
   * Stores {@code value} under {@code key} with the expiry of {@code current}, the value it
   * replaces (none when the key was absent): a value rewritten in place keeps its TTL, as in Redis.
   */
  static void rewrite(Cellar store, MemorySegment key, byte[] value, Current current) {
    store.put(
        key, MemorySegment.ofArray(value), current == null ? Cellar.NO_EXPIRY : current.expireAt());
  }

  /** The stripe of argument {@code i}. */
  static int stripe(dev.cellar.server.resp.Request r, int i) {
    return KeyLocks.stripe(r.buffer(), r.offset(i), r.length(i));
  }

  /** Milliseconds since the epoch, for expiry arithmetic. */
  static long now() {
    return System.currentTimeMillis();
  }
}
