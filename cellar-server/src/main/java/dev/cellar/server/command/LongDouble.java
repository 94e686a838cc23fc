package dev.cellar.server.command;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * {@code INCRBYFLOAT}'s arithmetic as Redis does it on x86-64: operands parsed with {@code strtold}
 * into 80-bit extended precision (a 64-bit significand), added with the sum rounded to the same
 * precision, and printed with {@code "%.17Lf"} minus trailing zeros. Emulating the precision rather
 * than adding exactly is what makes {@code INCRBYFLOAT k 123456789012345678} answer {@code
 * 123456789012345678} and {@code INCRBYFLOAT k 1e-20} answer {@code 0}, as Redis does.
 *
 * <p>Values are {@link BigDecimal}s that hold an extended-precision number exactly (every binary
 * fraction has a finite decimal expansion), so the only rounding is the one the hardware would do:
 * to nearest, ties to even. Rejected alternatives: {@code double} (11 bits short, visibly different
 * results from the seventeenth digit), exact decimal arithmetic (what this class replaced; differs
 * from Redis for large and tiny values).
 */
final class LongDouble {
  private LongDouble() {}

  /** Significand bits of the x87 extended format. */
  private static final int PRECISION = 64;

  /** Smallest exponent of the significand's last bit (subnormals included): 2^-16445. */
  private static final int MIN_EXPONENT = -16382 - (PRECISION - 1);

  /** Largest exponent of the significand's first bit. */
  private static final int MAX_EXPONENT = 16383;

  /** Redis refuses number texts this long or longer ({@code MAX_LONG_DOUBLE_CHARS}). */
  private static final int MAX_CHARS = 5 * 1024;

  private static final double LOG2_10 = Math.log(10) / Math.log(2);

  static final CommandError NAN_OR_INFINITY =
      new CommandError("ERR increment would produce NaN or Infinity");

  /**
   * Parses a number as Redis's {@code string2ld} does: decimal with optional sign, fraction and
   * exponent, or an infinity, for which it returns null (the caller decides when to refuse it:
   * Redis checks both operands' syntax first); no surrounding spaces; nothing that overflows or
   * underflows to zero; no NaN. Throws {@link CommandError#NOT_FLOAT} otherwise. Hexadecimal
   * floats, which {@code strtold} also reads, are refused.
   */
  static BigDecimal parse(byte[] bytes) {
    if (bytes.length == 0 || bytes.length >= MAX_CHARS) {
      throw CommandError.NOT_FLOAT;
    }
    String text = new String(bytes, StandardCharsets.US_ASCII);
    String unsigned = text.charAt(0) == '-' || text.charAt(0) == '+' ? text.substring(1) : text;
    if (unsigned.equalsIgnoreCase("inf") || unsigned.equalsIgnoreCase("infinity")) {
      return null;
    }
    if (unsigned.isEmpty()
        || !(Character.isDigit(unsigned.charAt(0)) || unsigned.charAt(0) == '.')) {
      throw CommandError.NOT_FLOAT; // BigDecimal would also take a second sign; strtold would not
    }
    BigDecimal exact;
    try {
      exact = new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw CommandError.NOT_FLOAT;
    }
    BigDecimal rounded = round(exact);
    if (rounded == null || (rounded.signum() == 0 && exact.signum() != 0)) {
      throw CommandError.NOT_FLOAT; // ERANGE: overflow to infinity or underflow to zero
    }
    return rounded;
  }

  /**
   * The extended-precision number nearest to {@code x} (ties to even), or null when it overflows to
   * infinity.
   */
  static BigDecimal round(BigDecimal x) {
    if (x.signum() == 0) {
      return BigDecimal.ZERO;
    }
    long decimalExponent = (long) x.precision() - x.scale() - 1; // x = d.ddd × 10^decimalExponent
    if (decimalExponent > 4933) {
      return null;
    }
    if (decimalExponent < -4952) {
      return BigDecimal.ZERO; // below half the smallest subnormal
    }
    BigDecimal abs = x.abs();
    int top = floorLog2(abs);
    int exponent = Math.max(top - (PRECISION - 1), MIN_EXPONENT);
    BigInteger significand =
        times2(abs, -exponent).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
    if (significand.bitLength() > PRECISION) { // rounding carried into a new bit
      significand = significand.shiftRight(1);
      exponent++;
    }
    if (exponent + PRECISION - 1 > MAX_EXPONENT) {
      return null;
    }
    BigDecimal value = times2(new BigDecimal(significand), exponent);
    return x.signum() < 0 ? value.negate() : value;
  }

  /** {@code "%.17Lf"} without trailing zeros (nor a trailing point), and "0" rather than "-0". */
  static String format(BigDecimal value) {
    BigDecimal fixed = value.setScale(17, RoundingMode.HALF_EVEN);
    if (fixed.signum() == 0) {
      return "0";
    }
    return fixed.stripTrailingZeros().toPlainString();
  }

  /** The largest {@code e} with {@code 2^e <= x}, for {@code x > 0}. */
  private static int floorLog2(BigDecimal x) {
    int estimate = (int) Math.floor(x.unscaledValue().bitLength() - 1 - x.scale() * LOG2_10);
    while (times2(BigDecimal.ONE, estimate).compareTo(x) > 0) {
      estimate--;
    }
    while (times2(BigDecimal.ONE, estimate + 1).compareTo(x) <= 0) {
      estimate++;
    }
    return estimate;
  }

  /** {@code x × 2^e}, exactly. */
  private static BigDecimal times2(BigDecimal x, int e) {
    if (e >= 0) {
      return x.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(e)));
    }
    // 2^-n = 5^n / 10^n
    return x.multiply(new BigDecimal(BigInteger.valueOf(5).pow(-e), -e));
  }
}
