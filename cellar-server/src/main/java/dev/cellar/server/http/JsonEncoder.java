package dev.cellar.server.http;

import java.util.Map;

/**
 * Writes the few JSON shapes the HTTP interface answers with: maps (in their iteration order),
 * lists, strings, numbers, booleans and null. A library would be a dependency for a hundred lines;
 * a parser is not needed, since the interface reads no JSON.
 */
final class JsonEncoder {
  private JsonEncoder() {}

  static String encode(Object value) {
    StringBuilder b = new StringBuilder(64);
    write(b, value);
    return b.toString();
  }

  private static void write(StringBuilder b, Object value) {
    switch (value) {
      case null -> b.append("null");
      case String s -> string(b, s);
      case Boolean flag -> b.append(flag);
      case Double d -> number(b, d);
      case Float f -> number(b, f);
      case Number n -> b.append(n.longValue());
      case Map<?, ?> map -> object(b, map);
      case Iterable<?> items -> array(b, items);
      default ->
          throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
    }
  }

  private static void object(StringBuilder b, Map<?, ?> map) {
    b.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      string(b, String.valueOf(e.getKey()));
      b.append(':');
      write(b, e.getValue());
    }
    b.append('}');
  }

  private static void array(StringBuilder b, Iterable<?> items) {
    b.append('[');
    boolean first = true;
    for (Object item : items) {
      if (!first) {
        b.append(',');
      }
      first = false;
      write(b, item);
    }
    b.append(']');
  }

  private static void number(StringBuilder b, double d) {
    // JSON has no NaN or infinities; a gauge that cannot be computed is absent, not a bad document.
    if (Double.isFinite(d)) {
      b.append(d);
    } else {
      b.append("null");
    }
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
