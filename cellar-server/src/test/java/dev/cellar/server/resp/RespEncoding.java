package dev.cellar.server.resp;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.util.List;

/** Writes requests the two ways clients send them, for tests that parse them back. */
final class RespEncoding {
  private static final byte[] HEX = "0123456789abcdef".getBytes(US_ASCII);

  private RespEncoding() {}

  /** {@code *<argc>\r\n} then {@code $<length>\r\n<bytes>\r\n} per argument. */
  static byte[] multibulk(List<byte[]> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("*" + args.size() + "\r\n").getBytes(US_ASCII));
    for (byte[] a : args) {
      out.writeBytes(("$" + a.length + "\r\n").getBytes(US_ASCII));
      out.writeBytes(a);
      out.writeBytes("\r\n".getBytes(US_ASCII));
    }
    return out.toByteArray();
  }

  /**
   * One inline line with every argument double-quoted: printable bytes as they are, quote and
   * backslash escaped, everything else as {@code \xHH}.
   */
  static byte[] inline(List<byte[]> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < args.size(); i++) {
      if (i > 0) {
        out.write(' ');
      }
      out.write('"');
      for (byte b : args.get(i)) {
        int c = b & 0xff;
        if (c == '"' || c == '\\') {
          out.write('\\');
          out.write(c);
        } else if (c >= 0x20 && c < 0x7f) {
          out.write(c);
        } else {
          out.write('\\');
          out.write('x');
          out.write(HEX[c >>> 4]);
          out.write(HEX[c & 0xf]);
        }
      }
      out.write('"');
    }
    out.writeBytes("\r\n".getBytes(US_ASCII));
    return out.toByteArray();
  }
}
