package dev.cellar.bench.server;

import java.util.Locale;

/** How the report writes rates, latencies and sizes. */
public final class Format {
  private Format() {}

  /** Operations per second with thousands separators: {@code 1,234,567}. */
  public static String rate(double opsPerSecond) {
    return String.format(Locale.ROOT, "%,.0f", opsPerSecond);
  }

  public static String millis(double ms) {
    return String.format(Locale.ROOT, "%.3f", ms);
  }

  public static String ratio(double ratio) {
    return String.format(Locale.ROOT, "%.2fx", ratio);
  }

  public static String percent(double share) {
    return String.format(Locale.ROOT, "%.0f%%", share * 100);
  }

  public static String bytes(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1 << 20));
  }
}
