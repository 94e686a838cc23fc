package dev.cellar.cli.demo;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The demo's keys and values: key {@code user:<n>}, and a {@value #VALUE_BYTES}-byte value that is
 * a function of {@code n} alone ({@code value:<n>:} then a letter chosen by {@code n}), so a read
 * can be checked without remembering what was written, in this run or in an earlier one.
 */
final class DemoData {
  static final int VALUE_BYTES = 60;

  private DemoData() {}

  static byte[] key(long n) {
    return ("user:" + n).getBytes(StandardCharsets.US_ASCII);
  }

  /** Fills {@code value} (of {@link #VALUE_BYTES} bytes) with key {@code n}'s value. */
  static void fillValue(long n, byte[] value) {
    byte[] prefix = ("value:" + n + ":").getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(prefix, 0, value, 0, prefix.length);
    Arrays.fill(value, prefix.length, value.length, (byte) ('a' + n % 26));
  }
}
