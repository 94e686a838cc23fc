package dev.cellar.server.http;

import java.nio.charset.StandardCharsets;

/** Test-side percent-encoding: every byte outside the URI's unreserved set as %XX. */
final class UriBytes {
  private UriBytes() {}

  static String encode(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) {
      int c = x & 0xFF;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return b.toString();
  }

  static String encode(String text) {
    return encode(text.getBytes(StandardCharsets.UTF_8));
  }
}
