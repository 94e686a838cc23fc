package dev.cellar.server.command;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Sorted-set scores as Redis reads and writes them: parsed as C's {@code strtod} reads a decimal
 * (or an infinity; NaN refused), and printed as Redis's {@code d2string} does: integers below 2^52
 * in full, everything else as C's {@code %.17g}.
 */
final class Scores {
  private Scores() {}

  static final CommandError NOT_FLOAT = new CommandError("ERR value is not a valid float");

  /** The score in {@code b}, or throws {@link #NOT_FLOAT}. */
  static double parse(byte[] b) {
    Double d = tryParse(b);
    if (d == null) {
      throw NOT_FLOAT;
    }
    return d;
  }

  /**
   * The score in {@code b}, or null if it is not one, or is out of a double's range (past DBL_MAX,
   * or a non-zero number that rounds to zero), as Redis's {@code getDoubleFromObject} refuses it.
   */
  static Double tryParse(byte[] b) {
    return tryParse(b, false);
  }

  /**
   * A bound of a score range: as {@link #tryParse}, but out of range is no error there (Redis's
   * {@code zslParseRange} calls {@code strtod} alone), so 1e400 is infinity.
   */
  static Double tryParseBound(byte[] b) {
    return tryParse(b, true);
  }

  private static Double tryParse(byte[] b, boolean outOfRangeAllowed) {
    // Redis takes any length strtod takes (DBL_MAX written out is 309 digits); the bound keeps a
    // hostile megabyte of digits from being parsed.
    if (b.length == 0 || b.length > MAX_CHARS) {
      return null;
    }
    String text = new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    int i = text.charAt(0) == '+' || text.charAt(0) == '-' ? 1 : 0;
    String body = text.substring(i).toLowerCase(java.util.Locale.ROOT);
    if (body.equals("inf") || body.equals("infinity")) {
      return text.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    // Digits, at most one point, an exponent: what strtod takes that Java's parser also takes
    // (Java alone would take a trailing 'd' or 'f', and "NaN").
    boolean digits = false;
    boolean point = false;
    int at = 0;
    for (; at < body.length(); at++) {
      char c = body.charAt(at);
      if (c >= '0' && c <= '9') {
        digits = true;
      } else if (c == '.' && !point) {
        point = true;
      } else {
        break;
      }
    }
    if (!digits) {
      return null;
    }
    if (at < body.length()) {
      if (body.charAt(at) != 'e') {
        return null;
      }
      at++;
      if (at < body.length() && (body.charAt(at) == '+' || body.charAt(at) == '-')) {
        at++;
      }
      int start = at;
      while (at < body.length() && Character.isDigit(body.charAt(at))) {
        at++;
      }
      if (at == start || at != body.length()) {
        return null;
      }
    }
    double d = Double.parseDouble(text);
    // Out of range as strtod reports it (ERANGE), which Redis refuses: past DBL_MAX, or so small
    // that it rounds to zero although a digit is not.
    if (Double.isNaN(d)) {
      return null;
    }
    if (!outOfRangeAllowed && (Double.isInfinite(d) || (d == 0 && nonZeroMantissa(body)))) {
      return null;
    }
    return d;
  }

  /** Redis's {@code MAX_LONG_DOUBLE_CHARS}: the longest number text it reads. */
  private static final int MAX_CHARS = 5 * 1024;

  /** Whether a digit of {@code body} before its exponent is not zero. */
  private static boolean nonZeroMantissa(String body) {
    int e = body.indexOf('e');
    int stop = e < 0 ? body.length() : e;
    for (int i = 0; i < stop; i++) {
      char c = body.charAt(i);
      if (c >= '1' && c <= '9') {
        return true;
      }
    }
    return false;
  }

  /** Redis's text of a score. */
  static String format(double d) {
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1.0 / d < 0) ? "-0" : "0";
    }
    if (d > -4503599627370495.0 && d < 4503599627370496.0 && d == (double) (long) d) {
      return Long.toString((long) d);
    }
    return g17(d);
  }

  /** C's {@code %.17g}: 17 significant digits, trailing zeros dropped, exponent past 10^17. */
  static String g17(double d) {
    BigDecimal rounded = new BigDecimal(d).round(new MathContext(17, RoundingMode.HALF_EVEN));
    int exponent = rounded.precision() - rounded.scale() - 1;
    if (exponent < -4 || exponent >= 17) {
      BigDecimal mantissa = rounded.movePointLeft(exponent);
      String m = stripZeros(mantissa.toPlainString());
      String sign = exponent < 0 ? "-" : "+";
      int abs = Math.abs(exponent);
      return m + "e" + sign + (abs < 10 ? "0" : "") + abs;
    }
    return stripZeros(rounded.toPlainString());
  }

  /**
   * The text Redis 7.2 passes for a number a script gives {@code redis.call}: an integer as one (up
   * to 2^62), else the shortest digits that read back as the same double, in {@code fpconv_dtoa}'s
   * layout (plain while the exponent is small, else {@code 1e-7}, {@code 1e+300}). So
   * 3.14159265358979 is stored whole, and 1e15 as "1000000000000000", where LuaJ's own text keeps a
   * float's eight digits.
   */
  static String lua(double d) {
    if (d >= -(Long.MAX_VALUE / 2) && d <= Long.MAX_VALUE / 2 && d == (long) d) {
      return Long.toString((long) d);
    }
    boolean negative = Double.doubleToRawLongBits(d) < 0;
    StringBuilder out = new StringBuilder(24);
    if (negative) {
      out.append('-');
    }
    if (Double.isNaN(d)) {
      return out.append("nan").toString();
    }
    if (Double.isInfinite(d)) {
      return out.append("inf").toString();
    }
    BigDecimal shortest = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = shortest.unscaledValue().toString();
    int count = digits.length();
    int k = -shortest.scale(); // the value is digits * 10^k
    int exp = Math.abs(k + count - 1);
    if (k >= 0 && exp < count + 7) {
      return out.append(digits).append("0".repeat(k)).toString();
    }
    if (k < 0 && (k > -7 || exp < 4)) {
      int offset = count + k;
      if (offset <= 0) {
        return out.append("0.").append("0".repeat(-offset)).append(digits).toString();
      }
      return out.append(digits, 0, offset).append('.').append(digits, offset, count).toString();
    }
    count = Math.min(count, 18 - (negative ? 1 : 0));
    out.append(digits.charAt(0));
    if (count > 1) {
      out.append('.').append(digits, 1, count);
    }
    return out.append('e').append(k + count - 1 < 0 ? '-' : '+').append(exp).toString();
  }

  private static String stripZeros(String s) {
    if (s.indexOf('.') < 0) {
      return s;
    }
    int end = s.length();
    while (s.charAt(end - 1) == '0') {
      end--;
    }
    if (s.charAt(end - 1) == '.') {
      end--;
    }
    return s.substring(0, end);
  }
}
