package dev.cellar.cluster;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of one entry of a shard's Raft log, and of a read sent to a replica: a command as
 * RESP's array of bulk strings ({@code *N\r\n} then {@code $len\r\n bytes \r\n} N times), exactly
 * what a client sends. Relative expiries are made absolute before an entry is proposed ({@code SET
 * ... PXAT}), so that every replica applies the same effect whenever it applies it.
 * docs/format/cluster-log.md describes it.
 */
public final class ShardLogEntry {
  /** Arguments an entry may have: far more than any command the state machine applies takes. */
  public static final int MAX_ARGUMENTS = 1 << 20;

  private ShardLogEntry() {}

  /** Encodes {@code arguments} (the command's name first). */
  public static byte[] encode(List<byte[]> arguments) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 16 * arguments.size());
    header(out, '*', arguments.size());
    for (byte[] argument : arguments) {
      header(out, '$', argument.length);
      out.writeBytes(argument);
      out.write('\r');
      out.write('\n');
    }
    return out.toByteArray();
  }

  /** Encodes the command of {@code arguments}, each a string's UTF-8 bytes. */
  public static byte[] encode(String... arguments) {
    List<byte[]> list = new ArrayList<>(arguments.length);
    for (String argument : arguments) {
      list.add(argument.getBytes(StandardCharsets.UTF_8));
    }
    return encode(list);
  }

  /**
   * The arguments of the entry in {@code bytes}.
   *
   * @throws IllegalArgumentException if the bytes are not one array of bulk strings, exactly
   */
  public static List<byte[]> decode(byte[] bytes) {
    int[] at = {0};
    int count = number(bytes, at, '*');
    if (count < 1 || count > MAX_ARGUMENTS) {
      throw new IllegalArgumentException("a log entry's command has " + count + " arguments");
    }
    List<byte[]> arguments = new ArrayList<>(Math.min(count, 64));
    for (int i = 0; i < count; i++) {
      int length = number(bytes, at, '$');
      if (length < 0 || length > bytes.length - at[0] - 2) {
        throw new IllegalArgumentException("a log entry's argument runs past its end");
      }
      byte[] argument = new byte[length];
      System.arraycopy(bytes, at[0], argument, 0, length);
      at[0] += length;
      if (bytes[at[0]] != '\r' || bytes[at[0] + 1] != '\n') {
        throw new IllegalArgumentException("a log entry's argument does not end with CRLF");
      }
      at[0] += 2;
      arguments.add(argument);
    }
    if (at[0] != bytes.length) {
      throw new IllegalArgumentException("a log entry has bytes after its command");
    }
    return arguments;
  }

  private static void header(ByteArrayOutputStream out, char type, int n) {
    out.write(type);
    out.writeBytes(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
    out.write('\r');
    out.write('\n');
  }

  /** Reads {@code <type><decimal>\r\n} at {@code at[0]} and moves past it. */
  private static int number(byte[] bytes, int[] at, char type) {
    int i = at[0];
    if (i >= bytes.length || bytes[i] != type) {
      throw new IllegalArgumentException("a log entry lacks '" + type + "' at byte " + i);
    }
    long n = 0;
    int digits = 0;
    for (i++; i < bytes.length && bytes[i] != '\r'; i++, digits++) {
      byte b = bytes[i];
      if (b < '0' || b > '9' || digits >= 10) {
        throw new IllegalArgumentException("a log entry has a bad length at byte " + i);
      }
      n = n * 10 + (b - '0');
    }
    if (digits == 0 || n > Integer.MAX_VALUE || i + 1 >= bytes.length || bytes[i + 1] != '\n') {
      throw new IllegalArgumentException("a log entry has a bad length at byte " + at[0]);
    }
    at[0] = i + 2;
    return (int) n;
  }
}
