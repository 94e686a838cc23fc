package dev.cellar.bench.crash;

import java.util.List;
import java.util.function.Function;

/**
 * One write a crash-loop client sends: what it does to the model ({@link #after}), how it goes over
 * the wire through a client library ({@link #send}), and what the server must answer given the
 * state before it ({@link #expectedReply}). Replies are compared as text, so a wrong {@code INCR}
 * or {@code APPEND} result is caught while the server runs, not only after a restart.
 */
sealed interface Operation {
  /** Keys written, each with the state it has after this operation. */
  List<String> keys();

  KeyState after(String key, KeyState before);

  /** Sends the command and returns the server's reply as text; throws if the connection fails. */
  String send(ClientConnection connection);

  /** The reply the server must give, from the states before (looked up by key). */
  String expectedReply(Function<String, KeyState> before);

  /** The name shown in reports. */
  String command();

  record Set(String key, String value) implements Operation {
    public List<String> keys() {
      return List.of(key);
    }

    public KeyState after(String k, KeyState before) {
      return new KeyState(value, false);
    }

    public String send(ClientConnection connection) {
      return connection.set(key, value);
    }

    public String expectedReply(Function<String, KeyState> before) {
      return "OK";
    }

    public String command() {
      return "SET";
    }
  }

  /** {@code SET key value EX seconds}. */
  record SetEx(String key, String value, long seconds) implements Operation {
    public List<String> keys() {
      return List.of(key);
    }

    public KeyState after(String k, KeyState before) {
      return new KeyState(value, true);
    }

    public String send(ClientConnection connection) {
      return connection.setEx(key, value, seconds);
    }

    public String expectedReply(Function<String, KeyState> before) {
      return "OK";
    }

    public String command() {
      return "SET EX";
    }
  }

  record Del(String key) implements Operation {
    public List<String> keys() {
      return List.of(key);
    }

    public KeyState after(String k, KeyState before) {
      return KeyState.ABSENT;
    }

    public String send(ClientConnection connection) {
      return Long.toString(connection.del(key));
    }

    public String expectedReply(Function<String, KeyState> before) {
      return before.apply(key).present() ? "1" : "0";
    }

    public String command() {
      return "DEL";
    }
  }

  /** {@code INCR} of a counter key, which never holds anything but a number. */
  record Incr(String key) implements Operation {
    public List<String> keys() {
      return List.of(key);
    }

    public KeyState after(String k, KeyState before) {
      return new KeyState(Long.toString(count(before) + 1), before.expires());
    }

    public String send(ClientConnection connection) {
      return Long.toString(connection.incr(key));
    }

    public String expectedReply(Function<String, KeyState> before) {
      return Long.toString(count(before.apply(key)) + 1);
    }

    public String command() {
      return "INCR";
    }

    private static long count(KeyState state) {
      return state.present() ? Long.parseLong(state.value()) : 0;
    }
  }

  /** {@code APPEND}: keeps the key's expiry, as in Redis. */
  record Append(String key, String suffix) implements Operation {
    public List<String> keys() {
      return List.of(key);
    }

    public KeyState after(String k, KeyState before) {
      return before.present()
          ? new KeyState(before.value() + suffix, before.expires())
          : new KeyState(suffix, false);
    }

    public String send(ClientConnection connection) {
      return Long.toString(connection.append(key, suffix));
    }

    public String expectedReply(Function<String, KeyState> before) {
      KeyState state = before.apply(key);
      return Long.toString((state.present() ? state.value().length() : 0) + suffix.length());
    }

    public String command() {
      return "APPEND";
    }
  }

  /** {@code MSET} of two keys (distinct, of the same client). */
  record Mset(String key1, String value1, String key2, String value2) implements Operation {
    public List<String> keys() {
      return List.of(key1, key2);
    }

    public KeyState after(String k, KeyState before) {
      return new KeyState(k.equals(key1) ? value1 : value2, false);
    }

    public String send(ClientConnection connection) {
      return connection.mset(key1, value1, key2, value2);
    }

    public String expectedReply(Function<String, KeyState> before) {
      return "OK";
    }

    public String command() {
      return "MSET";
    }
  }
}
