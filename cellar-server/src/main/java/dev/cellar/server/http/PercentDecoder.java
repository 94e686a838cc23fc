package dev.cellar.server.http;

import java.io.ByteArrayOutputStream;

/**
 * Turns a percent-encoded part of a request target into the bytes it names, so keys are
 * binary-safe: {@code %00} to {@code %FF} are single bytes, never characters of some charset.
 * Characters 0x01 to 0xFF are taken as the byte of the same value (Netty hands the request line
 * over one character per byte), so a client that sends raw UTF-8 in the path still gets its bytes;
 * anything above 0xFF cannot have come off the wire and is refused.
 *
 * <p>In a query, {@code +} means a space (HTML form encoding, which most client libraries produce);
 * in a path it is a plus. Send {@code %2B} for a plus in a query value.
 */
final class PercentDecoder {
  private PercentDecoder() {}

  static byte[] path(String raw) {
    return decode(raw, false);
  }

  static byte[] query(String raw) {
    return decode(raw, true);
  }

  private static byte[] decode(String raw, boolean plusIsSpace) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        if (i + 2 >= raw.length()) {
          throw HttpError.badRequest(
              "truncated percent escape at position "
                  + i
                  + " of '"
                  + abbreviate(raw)
                  + "': write a byte as %XX with two hex digits");
        }
        int high = hex(raw.charAt(i + 1));
        int low = hex(raw.charAt(i + 2));
        if (high < 0 || low < 0) {
          throw HttpError.badRequest(
              "bad percent escape '"
                  + raw.substring(i, i + 3)
                  + "' at position "
                  + i
                  + ": write a byte as %XX with two hex digits");
        }
        out.write(high << 4 | low);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        out.write(' ');
      } else if (c > 0xFF) {
        throw HttpError.badRequest(
            "character U+"
                + Integer.toHexString(c)
                + " in the request target: percent-encode"
                + " key bytes outside ASCII (%XX per byte)");
      } else {
        out.write(c);
      }
    }
    return out.toByteArray();
  }

  /**
   * The value of an ASCII hex digit, or -1 ({@code Character.digit} would take other scripts'
   * digits).
   */
  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }
}
