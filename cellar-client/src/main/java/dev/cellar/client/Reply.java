package dev.cellar.client;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A decoded RESP3 reply: one record per type the protocol has, so a caller of {@link
 * CellarClient#command} can switch over it with patterns. An error reply at the top level is thrown
 * as a {@link CellarServerException}; one nested in an aggregate stays an {@link Error} value.
 */
public sealed interface Reply {
  /** {@code +text}: a status such as {@code OK} or {@code PONG}. */
  record Simple(String text) implements Reply {}

  /** {@code -CODE message}, nested in an aggregate. */
  record Error(String message) implements Reply {}

  /** {@code :n}. */
  record Int(long value) implements Reply {}

  /** {@code $n}: binary-safe bytes. Equal to another with the same bytes (a map key works). */
  record Bulk(byte[] bytes) implements Reply {
    @Override
    public boolean equals(Object o) {
      return o instanceof Bulk other && java.util.Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Bulk[" + new String(bytes, StandardCharsets.UTF_8) + "]";
    }
  }

  /** {@code _}: RESP3's one null (RESP2's null bulk and null array are not sent to RESP3). */
  record Null() implements Reply {}

  /** {@code *n}. */
  record Array(List<Reply> elements) implements Reply {}

  /** {@code %n}, keys in the order the server sent them. */
  record MapReply(Map<Reply, Reply> entries) implements Reply {}

  /** {@code ~n}, elements in the order the server sent them. */
  record SetReply(List<Reply> elements) implements Reply {}

  /** {@code ,x}, including {@code inf}, {@code -inf} and {@code nan}. */
  record Dbl(double value) implements Reply {}

  /** {@code #t} or {@code #f}. */
  record Bool(boolean value) implements Reply {}

  /** {@code =n}: text with a three-letter format ({@code txt}, {@code mkd}). */
  record Verbatim(String format, String text) implements Reply {}

  /** {@code (n}: an integer of any size. */
  record BigNumber(BigInteger value) implements Reply {}

  /** {@code >n}: an out-of-band message, never the reply to a command. */
  record Push(List<Reply> elements) implements Reply {}

  /** The one null value. */
  Reply NULL = new Null();

  /** Whether this is the null reply. */
  default boolean isNull() {
    return this instanceof Null;
  }

  /** The bytes of a bulk, simple or verbatim string; null for the null reply. */
  default byte[] asBytes() {
    return switch (this) {
      case Bulk b -> b.bytes();
      case Simple s -> s.text().getBytes(StandardCharsets.UTF_8);
      case Verbatim v -> v.text().getBytes(StandardCharsets.UTF_8);
      case Null n -> null;
      default -> throw unexpected("a string");
    };
  }

  /** The text of a string reply (bytes read as UTF-8); null for the null reply. */
  default String asString() {
    return switch (this) {
      case Simple s -> s.text();
      case Verbatim v -> v.text();
      case Bulk b -> new String(b.bytes(), StandardCharsets.UTF_8);
      case Null n -> null;
      default -> throw unexpected("a string");
    };
  }

  /** The value of an integer reply. */
  default long asLong() {
    return switch (this) {
      case Int i -> i.value();
      case BigNumber b -> b.value().longValueExact();
      default -> throw unexpected("an integer");
    };
  }

  /** The elements of an array, set or push reply. */
  default List<Reply> asList() {
    return switch (this) {
      case Array a -> a.elements();
      case SetReply s -> s.elements();
      case Push p -> p.elements();
      default -> throw unexpected("an array");
    };
  }

  private CellarClientException unexpected(String wanted) {
    return new CellarClientException(
        "expected " + wanted + " in the reply, got " + this + " (is the command right?)");
  }
}
