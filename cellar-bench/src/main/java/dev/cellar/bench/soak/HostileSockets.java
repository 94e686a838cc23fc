package dev.cellar.bench.soak;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The hostile clients' sockets: always to loopback, each registered while open so that stopping the
 * soak can close the ones a blocked write still holds, and closed with a reset (SO_LINGER 0), as a
 * client that vanishes mid-request closes.
 *
 * <p>Thread-safe.
 */
final class HostileSockets {
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  /**
   * A connected socket on {@code port} of 127.0.0.1, reads timing out after {@code
   * readTimeoutMillis}.
   */
  Socket open(int port, int readTimeoutMillis) throws IOException {
    Socket socket = new Socket();
    open.add(socket);
    try {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
      socket.setSoTimeout(readTimeoutMillis);
      return socket;
    } catch (IOException e) {
      reset(socket);
      throw e;
    }
  }

  /**
   * A socket that has authenticated with {@code password} (reads then time out after {@code
   * readTimeoutMillis}); null, after counting the problem, when AUTH is not answered +OK.
   */
  Socket authenticated(int port, String password, int readTimeoutMillis, Consumer<String> problem)
      throws IOException {
    Socket socket = open(port, 10_000);
    socket.getOutputStream().write(command("AUTH", password));
    String auth = readLine(socket);
    if (!"+OK".equals(auth)) {
      reset(socket);
      problem.accept("AUTH replied " + auth);
      return null;
    }
    socket.setSoTimeout(readTimeoutMillis);
    return socket;
  }

  /** Closes with an RST instead of a FIN, and forgets the socket. */
  void reset(Socket socket) {
    open.remove(socket);
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException ignored) {
      // already closed
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing is all that is wanted
    }
  }

  /** Resets every socket still open (stopping: unblocks writes the server is not reading). */
  void resetAll() {
    for (Socket socket : Set.copyOf(open)) {
      reset(socket);
    }
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** A RESP request, as a client sends it. */
  static byte[] command(String... arguments) {
    StringBuilder wire = new StringBuilder().append('*').append(arguments.length).append("\r\n");
    for (String argument : arguments) {
      wire.append('$').append(argument.length()).append("\r\n").append(argument).append("\r\n");
    }
    return ascii(wire.toString());
  }

  /** Reads one line (without CRLF), or null at end of stream. */
  static String readLine(Socket socket) throws IOException {
    StringBuilder line = new StringBuilder();
    var in = socket.getInputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        return line.isEmpty() ? null : line.toString();
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }
}
