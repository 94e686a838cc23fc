package dev.cellar.server.resp;

/**
 * Decimal integers in and out of byte arrays without garbage, with Redis's rules: a valid integer
 * has no sign other than a leading {@code -}, no leading zeros, no spaces, and fits in 64 bits.
 */
public final class Numbers {
  private Numbers() {}

  /** Digits of {@code Long.MIN_VALUE}: the longest valid integer text. */
  static final int MAX_LONG_CHARS = 20;

  public static boolean isLong(byte[] b, int offset, int length) {
    if (length == 0 || length > MAX_LONG_CHARS) {
      return false;
    }
    int i = offset;
    int end = offset + length;
    boolean negative = b[i] == '-';
    if (negative) {
      i++;
      if (i == end) {
        return false;
      }
    }
    if (b[i] == '0') {
      // "0" alone is valid; "-0" and "01" are not, as in Redis.
      return i + 1 == end && !negative;
    }
    long value = 0; // accumulated negatively so Long.MIN_VALUE fits
    for (; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return false;
      }
      if (value < (Long.MIN_VALUE + d) / 10) {
        return false;
      }
      value = value * 10 - d;
      if (value > 0) {
        return false;
      }
    }
    return negative || value != Long.MIN_VALUE;
  }

  /** Parses a text {@link #isLong} accepted. */
  public static long parseLong(byte[] b, int offset, int length) {
    int i = offset;
    int end = offset + length;
    boolean negative = b[i] == '-';
    if (negative) {
      i++;
    }
    long value = 0;
    for (; i < end; i++) {
      value = value * 10 - (b[i] - '0');
    }
    return negative ? value : -value;
  }

  /** Number of characters {@code value} takes in decimal. */
  public static int decimalLength(long value) {
    if (value == Long.MIN_VALUE) {
      return MAX_LONG_CHARS;
    }
    int sign = 0;
    if (value < 0) {
      sign = 1;
      value = -value;
    }
    int digits = 1;
    long bound = 10;
    while (digits < 19 && value >= bound) {
      digits++;
      bound *= 10;
    }
    return sign + digits;
  }

  /** Writes {@code value} in decimal at {@code offset}; returns the offset after it. */
  public static int writeDecimal(byte[] b, int offset, long value) {
    if (value == Long.MIN_VALUE) {
      byte[] min = "-9223372036854775808".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      System.arraycopy(min, 0, b, offset, min.length);
      return offset + min.length;
    }
    int length = decimalLength(value);
    int end = offset + length;
    int at = end;
    boolean negative = value < 0;
    if (negative) {
      value = -value;
    }
    do {
      b[--at] = (byte) ('0' + value % 10);
      value /= 10;
    } while (value != 0);
    if (negative) {
      b[--at] = '-';
    }
    return end;
  }

  /** {@code value} as decimal text. */
  public static byte[] toBytes(long value) {
    byte[] b = new byte[decimalLength(value)];
    writeDecimal(b, 0, value);
    return b;
  }
}
