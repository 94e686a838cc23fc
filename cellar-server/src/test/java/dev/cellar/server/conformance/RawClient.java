package dev.cellar.server.conformance;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A RESP client with no opinions: it writes command arrays (or any bytes) to a socket and returns
 * each reply exactly as the server sent it, so tests compare bytes, as in {@code assertEquals("-ERR
 * wrong number of arguments for 'get' command\r\n", c.call("GET"))}.
 *
 * <p>Text is ISO-8859-1 throughout: one char per byte, so binary values and CRLFs survive the round
 * trip unchanged. A reply is read by walking its structure (RESP2 and RESP3 types), so a call
 * returns when its whole reply has arrived, and never consumes the next one.
 */
final class RawClient implements AutoCloseable {
  private static final int TIMEOUT_MILLIS = 10_000;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RawClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /**
   * Waits up to {@code millis} for each read from now on: for a client whose command is meant to
   * run long (a script killed by the test), so that a loaded machine does not time it out first.
   */
  void readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  static RawClient connect(int port) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
      s.setSoTimeout(TIMEOUT_MILLIS);
      s.setTcpNoDelay(true);
      return new RawClient(s);
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  /** Sends one command and returns its reply's bytes. */
  String call(String... args) throws IOException {
    send(args);
    return readReply();
  }

  /** Sends one command and returns its reply decoded by {@link #parse}. */
  Object callParsed(String... args) throws IOException {
    return parse(call(args));
  }

  /** Sends one command as a RESP array of bulk strings, without reading the reply. */
  void send(String... args) throws IOException {
    out.write(encode(args));
    out.flush();
  }

  /** The RESP encoding of a command, as clients send it. */
  static byte[] encode(String... args) {
    StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    }
    return b.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** {@link #encode} as text, for building pipelines. */
  static String command(String... args) {
    return new String(encode(args), StandardCharsets.ISO_8859_1);
  }

  /** Sends bytes as they are: inline commands, pipelines, malformed input. */
  void sendRaw(String text) throws IOException {
    sendRaw(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Reads exactly one reply (with any nested elements) and returns its bytes. */
  String readReply() throws IOException {
    ByteArrayOutputStream reply = new ByteArrayOutputStream();
    readValue(reply);
    return reply.toString(StandardCharsets.ISO_8859_1);
  }

  private void readValue(ByteArrayOutputStream reply) throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException(
          "connection closed by the server before a reply; got so far: "
              + reply.toString(StandardCharsets.ISO_8859_1));
    }
    reply.write(type);
    String line = readLine(reply);
    switch (type) {
      case '+', '-', ':', '_', ',', '#', '(' -> {}
      case '$', '=', '!' -> {
        long length = Long.parseLong(line);
        if (length >= 0) {
          reply.write(in.readNBytes((int) length + 2));
        }
      }
      case '*', '~', '>' -> readElements(reply, Long.parseLong(line));
      case '%' -> readElements(reply, 2 * Long.parseLong(line));
      case '|' -> {
        readElements(
            reply, 2 * Long.parseLong(line)); // an attribute precedes the reply it describes
        readValue(reply);
      }
      default ->
          throw new IOException(
              "not a RESP type byte: '"
                  + (char) type
                  + "' after "
                  + reply.toString(StandardCharsets.ISO_8859_1));
    }
  }

  private void readElements(ByteArrayOutputStream reply, long count) throws IOException {
    for (long i = 0; i < count; i++) {
      readValue(reply);
    }
  }

  /** Reads through the next CRLF, copying it to {@code reply}; returns the line without CRLF. */
  private String readLine(ByteArrayOutputStream reply) throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection closed inside a reply line: " + line);
      }
      reply.write(c);
      if (c == '\r') {
        int n = in.read();
        reply.write(n);
        if (n == '\n') {
          return line.toString();
        }
        line.append('\r').append((char) n);
      } else {
        line.append((char) c);
      }
    }
  }

  /**
   * Whether the server closes the connection: true when a read ends the stream (or the connection
   * is reset) within the timeout with no further bytes; false if bytes arrive or the timeout ends.
   */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset: the server closed with our bytes unread
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  // ------------------------------------------------------------------ decoding for tests that need
  // values

  /** An error reply, decoded. */
  record Error(String text) {}

  /**
   * Decodes one reply's text: simple and bulk strings to String, integers to Long, arrays, sets and
   * pushes to List, maps to a List of alternating keys and values, nulls to null, errors to {@link
   * Error}, doubles and big numbers to their text.
   */
  static Object parse(String raw) {
    int[] at = {0};
    Object value = parseAt(raw, at);
    if (at[0] != raw.length()) {
      throw new IllegalArgumentException("trailing bytes after reply: " + raw.substring(at[0]));
    }
    return value;
  }

  private static Object parseAt(String raw, int[] at) {
    char type = raw.charAt(at[0]);
    int end = raw.indexOf("\r\n", at[0]);
    String line = raw.substring(at[0] + 1, end);
    at[0] = end + 2;
    return switch (type) {
      case '+', ',', '(' -> line;
      case '-', '!' -> new Error(line);
      case ':' -> Long.parseLong(line);
      case '#' -> line.equals("t");
      case '_' -> null;
      case '$', '=' -> {
        int length = Integer.parseInt(line);
        if (length < 0) {
          yield null;
        }
        String body = raw.substring(at[0], at[0] + length);
        at[0] += length + 2;
        yield type == '=' ? body.substring(4) : body;
      }
      case '*', '~', '>', '%' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        int elements = type == '%' ? 2 * n : n;
        List<Object> list = new ArrayList<>(elements);
        for (int i = 0; i < elements; i++) {
          list.add(parseAt(raw, at));
        }
        yield list;
      }
      default ->
          throw new IllegalArgumentException("not a RESP type byte '" + type + "' in " + raw);
    };
  }
}
