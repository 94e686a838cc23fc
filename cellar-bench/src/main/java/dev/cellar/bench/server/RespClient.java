package dev.cellar.bench.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
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
 * The few commands the harness itself sends (PING, DBSIZE, INFO, SHUTDOWN), over one blocking
 * connection. Replies are returned as text; an error reply is thrown. Arrays are not needed and not
 * parsed.
 */
public final class RespClient implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RespClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  public static RespClient connect(int port, Duration timeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      return new RespClient(socket);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Connects and, if {@code password} is not null, authenticates with it. */
  public static RespClient connect(int port, Duration timeout, String password) throws IOException {
    RespClient client = connect(port, timeout);
    if (password != null) {
      try {
        client.call("AUTH", password);
      } catch (IOException e) {
        client.close();
        throw e;
      }
    }
    return client;
  }

  /**
   * Sends one command and returns its reply: simple string, bulk string (null if nil) or integer.
   */
  public String call(String... arguments) throws IOException {
    StringBuilder request = new StringBuilder().append('*').append(arguments.length).append("\r\n");
    for (String argument : arguments) {
      byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
      request.append('$').append(bytes.length).append("\r\n").append(argument).append("\r\n");
    }
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
    return readReply(String.join(" ", arguments));
  }

  private String readReply(String command) throws IOException {
    String line = readLine();
    if (line.isEmpty()) {
      throw new IOException("empty reply line to " + command);
    }
    String body = line.substring(1);
    return switch (line.charAt(0)) {
      case '+', ':' -> body;
      case '-' -> throw new IOException("server replied to " + command + ": " + body);
      case '$' -> readBulk(Integer.parseInt(body));
      default -> throw new IOException("unexpected reply to " + command + ": " + line);
    };
  }

  private String readBulk(int length) throws IOException {
    if (length < 0) {
      return null;
    }
    byte[] bytes = in.readNBytes(length + 2);
    if (bytes.length != length + 2) {
      throw new EOFException("connection closed inside a bulk reply of " + length + " bytes");
    }
    return new String(bytes, 0, length, StandardCharsets.UTF_8);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("connection closed before a reply");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
