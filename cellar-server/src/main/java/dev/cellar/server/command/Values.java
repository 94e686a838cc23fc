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

  /**
   * The string value of {@code key}, copied, or null if the key is absent.
   *
   * @throws CommandError WRONGTYPE if it holds a collection
   */
  static byte[] get(Cellar store, MemorySegment key) {
    byte[] v = store.read(key, COPY);
    if (v == null) {
      absentOrWrongType(store, key);
    }
    return v;
  }

  /**
   * For a string read that found nothing: throws WRONGTYPE if the key holds a collection, which
   * plain reads take for absent. Costs one more lookup, on misses only.
   */
  static void absentOrWrongType(Cellar store, MemorySegment key) {
    if (CollectionKeys.isCollection(store, key)) {
      throw CommandError.WRONG_TYPE;
    }
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
   * What {@code key} holds, string or collection header, with its expiry, or null: for the commands
   * that move or re-time a key of any type (EXPIRE, PERSIST, RENAME, MOVE).
   */
  record AnyCurrent(byte[] value, long expireAt, boolean header) {}

  static AnyCurrent anyCurrent(Cellar store, MemorySegment key) {
    long expireAt = store.expiryOf(key);
    if (expireAt == Cellar.ABSENT) {
      return null;
    }
    byte[] value = store.read(key, COPY);
    if (value != null) {
      return new AnyCurrent(value, expireAt, false);
    }
    byte[] header = store.readHeader(key, COPY);
    return header == null ? null : new AnyCurrent(header, expireAt, true);
  }

  /**
   * Stores {@code current}'s value (string or header) under {@code key}, expiring at {@code at}.
   */
  static void rewrite(Cellar store, MemorySegment key, AnyCurrent current, long at) {
    if (current.header()) {
      store.write(
          new dev.cellar.WriteBatch()
              .putHeader(key.toArray(ValueLayout.JAVA_BYTE), current.value(), at));
    } else {
      store.put(key, MemorySegment.ofArray(current.value()), at);
    }
  }

  /**
   * Stores {@code value} under {@code key} with the expiry of {@code current}, the value it
   * replaces (none when the key was absent): a value rewritten in place keeps its TTL, as in Redis.
   */
  static void rewrite(Cellar store, MemorySegment key, byte[] value, Current current) {
    store.put(
        key, MemorySegment.ofArray(value), current == null ? Cellar.NO_EXPIRY : current.expireAt());
  }

  /**
   * The optional count of the popping commands (SPOP, LPOP, ZPOPMIN...), argument 2: 1 when absent;
   * more arguments are a syntax error, a negative or non-numeric count Redis's range error.
   */
  static long optionalCount(dev.cellar.server.resp.Request r) {
    if (r.argc() > 3) {
      throw CommandError.SYNTAX;
    }
    if (r.argc() < 3) {
      return 1;
    }
    if (!r.isLong(2) || r.longValue(2) < 0) {
      throw new CommandError("ERR value is out of range, must be positive");
    }
    return r.longValue(2);
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
