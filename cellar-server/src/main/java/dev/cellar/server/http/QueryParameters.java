package dev.cellar.server.http;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The parameters of a query string, decoded to bytes ({@code prefix} is binary-safe like keys). A
 * name given twice keeps its first value; names no endpoint knows are ignored, so a client may send
 * parameters a later version understands.
 */
final class QueryParameters {
  private static final QueryParameters NONE = new QueryParameters(Map.of());
  private final Map<String, byte[]> values;

  private QueryParameters(Map<String, byte[]> values) {
    this.values = values;
  }

  /** Parses the part of a request target after {@code ?} (null or empty: no parameters). */
  static QueryParameters parse(String query) {
    if (query == null || query.isEmpty()) {
      return NONE;
    }
    Map<String, byte[]> values = new HashMap<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name =
          new String(
              PercentDecoder.query(eq < 0 ? pair : pair.substring(0, eq)), StandardCharsets.UTF_8);
      byte[] value = eq < 0 ? new byte[0] : PercentDecoder.query(pair.substring(eq + 1));
      values.putIfAbsent(name, value);
    }
    return new QueryParameters(values);
  }

  /** The raw bytes of {@code name}, or null when absent. */
  byte[] bytes(String name) {
    return values.get(name);
  }

  /** The value of {@code name} as text, or null when absent. */
  String text(String name) {
    byte[] v = values.get(name);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  /**
   * The value of {@code name} as an integer in {@code [min, max]}, {@code absent} when it is not
   * given; anything else is a 400 naming the parameter and the range.
   */
  long integer(String name, long min, long max, long absent) {
    String v = text(name);
    if (v == null) {
      return absent;
    }
    long n;
    try {
      // Digits in ASCII only: parseLong would also take other scripts' digits and a leading '+'.
      if (!v.matches("-?[0-9]{1,19}")) {
        throw new NumberFormatException();
      }
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw HttpError.badRequest(
          "parameter '"
              + name
              + "' is '"
              + abbreviate(v)
              + "': it must be an integer from "
              + min
              + " to "
              + max);
    }
    if (n < min || n > max) {
      throw HttpError.badRequest(
          "parameter '" + name + "' is " + n + ": it must be from " + min + " to " + max);
    }
    return n;
  }

  private static String abbreviate(String s) {
    return s.length() <= 32 ? s : s.substring(0, 32) + "...";
  }
}
