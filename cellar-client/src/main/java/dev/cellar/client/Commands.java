package dev.cellar.client;

import dev.cellar.client.protocol.Command;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The typed commands, built once for the three ways of sending them ({@link CellarClient}, {@link
 * Pipeline}, {@link AsyncCommands}), each with the meaning of its reply.
 */
final class Commands {
  private Commands() {}

  static Command<byte[]> get(byte[] key) {
    return Command.of("GET", Reply::asBytes, key);
  }

  /** {@code GET}, its value read in place by {@code reader}; see {@link Command#reading}. */
  static <R> Command<R> read(
      byte[] key, java.util.function.Function<java.lang.foreign.MemorySegment, R> reader) {
    return Command.reading("GET", java.util.Objects.requireNonNull(reader, "reader"), key);
  }

  static Command<Void> set(byte[] key, byte[] value) {
    return Command.of("SET", Commands::none, key, value);
  }

  static Command<Void> set(byte[] key, byte[] value, Duration ttl) {
    return Command.of("SET", Commands::none, key, value, ascii("PX"), millis(ttl));
  }

  static Command<Long> del(byte[]... keys) {
    return Command.of("DEL", Reply::asLong, nonEmpty("DEL", keys));
  }

  static Command<Long> exists(byte[]... keys) {
    return Command.of("EXISTS", Reply::asLong, nonEmpty("EXISTS", keys));
  }

  static Command<List<byte[]>> mget(byte[]... keys) {
    return Command.of(
        "MGET",
        reply -> {
          List<byte[]> values = new ArrayList<>(reply.asList().size());
          for (Reply r : reply.asList()) {
            values.add(r.asBytes());
          }
          return values;
        },
        nonEmpty("MGET", keys));
  }

  static Command<Void> mset(byte[]... keysAndValues) {
    if (keysAndValues.length == 0 || keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "MSET takes keys and values in pairs, not " + keysAndValues.length + " arguments");
    }
    return Command.of("MSET", Commands::none, keysAndValues);
  }

  static Command<Long> incr(byte[] key) {
    return Command.of("INCR", Reply::asLong, key);
  }

  static Command<Long> decr(byte[] key) {
    return Command.of("DECR", Reply::asLong, key);
  }

  static Command<Long> incrBy(byte[] key, long delta) {
    return Command.of("INCRBY", Reply::asLong, key, ascii(Long.toString(delta)));
  }

  static Command<Long> append(byte[] key, byte[] value) {
    return Command.of("APPEND", Reply::asLong, key, value);
  }

  static Command<Boolean> expire(byte[] key, Duration ttl) {
    return Command.of("PEXPIRE", reply -> reply.asLong() == 1, key, millis(ttl));
  }

  static Command<Boolean> persist(byte[] key) {
    return Command.of("PERSIST", reply -> reply.asLong() == 1, key);
  }

  static Command<Long> ttl(byte[] key) {
    return Command.of("TTL", Reply::asLong, key);
  }

  static Command<Long> pttl(byte[] key) {
    return Command.of("PTTL", Reply::asLong, key);
  }

  static Command<Long> pexpiretime(byte[] key) {
    return Command.of("PEXPIRETIME", Reply::asLong, key);
  }

  static Command<String> ping() {
    return Command.of("PING", Reply::asString);
  }

  static Command<Long> dbSize() {
    return Command.of("DBSIZE", Reply::asLong);
  }

  static Command<ScanPage> scan(String cursor, byte[] pattern, int count) {
    List<byte[]> args = new ArrayList<>(List.of(ascii(cursor)));
    if (pattern != null) {
      args.add(ascii("MATCH"));
      args.add(pattern);
    }
    args.add(ascii("COUNT"));
    args.add(ascii(Integer.toString(count)));
    return Command.of(
        "SCAN",
        reply -> {
          List<Reply> parts = reply.asList();
          List<byte[]> keys = new ArrayList<>();
          for (Reply k : parts.get(1).asList()) {
            keys.add(k.asBytes());
          }
          return new ScanPage(parts.get(0).asString(), keys);
        },
        args.toArray(new byte[0][]));
  }

  static Command<Reply> raw(String name, byte[]... args) {
    return Command.of(name, reply -> reply, args);
  }

  /** One page of {@code SCAN}: the cursor to pass next ({@code "0"} at the end) and its keys. */
  record ScanPage(String cursor, List<byte[]> keys) {}

  private static Void none(Reply reply) {
    return null;
  }

  private static byte[][] nonEmpty(String command, byte[][] keys) {
    if (keys.length == 0) {
      throw new IllegalArgumentException(command + " needs at least one key");
    }
    return keys;
  }

  /** A TTL in whole milliseconds, at least 1 (a shorter positive TTL is rounded up). */
  static byte[] millis(Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException(
          "a TTL must be positive, not " + ttl + " (delete the key instead)");
    }
    long ms = Math.max(1, ttl.toMillis());
    return ascii(Long.toString(ms));
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
