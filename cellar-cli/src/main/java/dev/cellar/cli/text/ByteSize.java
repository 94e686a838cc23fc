package dev.cellar.cli.text;

import java.util.Locale;

/** Byte counts for people: {@code 512 B}, {@code 1.2 KiB}, {@code 2.3 GiB} (binary units). */
public final class ByteSize {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSize() {}

  public static String format(long bytes) {
    if (bytes < 1024 && bytes > -1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = 0;
    while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
