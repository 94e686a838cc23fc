package dev.cellar.bench.soak;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One blocking RESP2 connection of a load client: commands go out as byte arrays (values of up to
 * 64 KiB are not worth a detour through strings), replies come back as {@link Reply}. An error
 * reply is a value, not an exception, so the client can count it and carry on; an exception means
 * the connection is unusable.
 */
final class SoakConnection implements AutoCloseable {
  private static final byte[] CRLF = {'\r', '\n'};

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** A reply: exactly one of the fields is meaningful, as {@link #kind} says. */
  record Reply(char kind, String text, long integer, byte[] bulk) {
    boolean isError() {
      return kind == '-';
    }

    @Override
    public String toString() {
      return switch (kind) {
        case '+', '-' -> kind + text;
        case ':' -> ":" + integer;
        case '$' -> bulk == null ? "(nil)" : "$" + bulk.length;
        default -> "?" + kind;
      };
    }
  }

  private SoakConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
  }

  /**
   * Connects to loopback; {@code timeout} bounds the connect and every read, so a stalled server
   * fails the client instead of hanging it.
   */
  static SoakConnection open(int port, Duration timeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      return new SoakConnection(socket);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** As {@link #open(int, Duration)}, then AUTH with {@code password} unless it is null. */
  static SoakConnection open(int port, Duration timeout, String password) throws IOException {
    SoakConnection connection = open(port, timeout);
    if (password != null) {
      Reply reply =
          connection.call(
              "AUTH".getBytes(StandardCharsets.US_ASCII),
              password.getBytes(StandardCharsets.UTF_8));
      if (reply.isError()) {
        connection.close();
        throw new IOException("AUTH failed: " + reply);
      }
    }
    return connection;
  }

  Reply call(byte[]... arguments) throws IOException {
    writeHeader('*', arguments.length);
    for (byte[] argument : arguments) {
      writeHeader('$', argument.length);
      out.write(argument);
      out.write(CRLF);
    }
    out.flush();
    return read();
  }

  private void writeHeader(char type, int n) throws IOException {
    out.write(type);
    out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
    out.write(CRLF);
  }

  private Reply read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed before a reply");
    }
    String line = readLine();
    return switch (type) {
      case '+', '-' -> new Reply((char) type, line, 0, null);
      case ':' -> new Reply(':', null, Long.parseLong(line), null);
      case '$' -> new Reply('$', null, 0, readBulk(Integer.parseInt(line)));
      default ->
          throw new IOException("unexpected reply type '" + (char) type + "' followed by " + line);
    };
  }

  private byte[] readBulk(int length) throws IOException {
    if (length < 0) {
      return null;
    }
    byte[] bytes = in.readNBytes(length);
    if (bytes.length != length || in.read() != '\r' || in.read() != '\n') {
      throw new EOFException("connection closed inside a bulk reply of " + length + " bytes");
    }
    return bytes;
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("connection closed inside a reply line");
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
