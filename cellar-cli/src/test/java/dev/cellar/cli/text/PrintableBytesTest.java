package dev.cellar.cli.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PrintableBytesTest {
  @Test
  void printableAsciiIsQuotedAsIs() {
    assertEquals(
        "\"user:1 a~\"",
        PrintableBytes.format("user:1 a~".getBytes(StandardCharsets.US_ASCII), 64));
  }

  @Test
  void otherBytesAreEscaped() {
    assertEquals(
        "\"\\x00\\x7f\\xff\\n\\\\\\\"\"".replace("\\n", "\\x0a"),
        PrintableBytes.format(new byte[] {0, 0x7F, (byte) 0xFF, '\n', '\\', '"'}, 64));
  }

  @Test
  void longInputIsCut() {
    assertEquals(
        "\"abc\"...", PrintableBytes.format("abcdef".getBytes(StandardCharsets.US_ASCII), 3));
    assertEquals("\"\"", PrintableBytes.format(new byte[0], 3));
  }

  @Test
  void byteSizesUseBinaryUnits() {
    assertEquals("0 B", ByteSize.format(0));
    assertEquals("1023 B", ByteSize.format(1023));
    assertEquals("1.0 KiB", ByteSize.format(1024));
    assertEquals("2.3 GiB", ByteSize.format((long) (2.3 * (1L << 30))));
  }
}
