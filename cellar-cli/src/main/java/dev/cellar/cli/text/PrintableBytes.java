package dev.cellar.cli.text;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Arbitrary bytes (keys, values) as one line of text a terminal shows faithfully: printable ASCII
 * as itself, everything else as {@code \xNN}, the whole in double quotes so that spaces and empty
 * strings stay visible. A backslash and a quote are escaped, so the output reads back
 * unambiguously. Long byte strings are cut after {@code maxBytes} and end in {@code ...}, outside
 * the quotes.
 */
public final class PrintableBytes {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private PrintableBytes() {}

  public static String format(MemorySegment bytes, int maxBytes) {
    long shown = Math.min(bytes.byteSize(), maxBytes);
    StringBuilder text = new StringBuilder((int) shown + 8).append('"');
    for (long i = 0; i < shown; i++) {
      int b = bytes.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
      if (b == '"' || b == '\\') {
        text.append('\\').append((char) b);
      } else if (b >= 0x20 && b < 0x7F) {
        text.append((char) b);
      } else {
        text.append("\\x").append(HEX[b >>> 4]).append(HEX[b & 0xF]);
      }
    }
    text.append('"');
    if (shown < bytes.byteSize()) {
      text.append("...");
    }
    return text.toString();
  }

  public static String format(byte[] bytes, int maxBytes) {
    return format(MemorySegment.ofArray(bytes), maxBytes);
  }
}
