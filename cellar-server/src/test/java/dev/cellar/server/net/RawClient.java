package dev.cellar.server.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A socket that sends RESP bytes and reads replies as bytes: nothing between the test and the wire.
 */
final class RawClient implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  static byte[] command(String... args) {
    StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$')
          .append(a.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(a)
          .append("\r\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  RawClient send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  RawClient send(String... args) throws IOException {
    return send(command(args));
  }

  /** Reads until {@code expected} bytes arrived (or the peer closed); returns what came. */
  String read(int expected) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    while (got.size() < expected) {
      int n = in.read(buf, 0, Math.min(buf.length, expected - got.size()));
      if (n < 0) {
        break;
      }
      got.write(buf, 0, n);
    }
    return got.toString(StandardCharsets.UTF_8);
  }

  /** Reads one line-terminated reply (simple, error or integer). */
  String readLine() throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      got.write(c);
      if (c == '\n') {
        break;
      }
    }
    return got.toString(StandardCharsets.UTF_8);
  }

  /** Whether the server closed the connection (EOF within the timeout). */
  /** {@code INFO section}'s text, read whole. */
  String info(String section) throws IOException {
    String header = send("INFO", section).readLine();
    return read(Integer.parseInt(header.substring(1).trim()) + 2);
  }

  boolean closedByPeer() throws IOException {
    try {
      byte[] buf = new byte[65536];
      while (true) {
        int n = in.read(buf);
        if (n < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by peer
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
