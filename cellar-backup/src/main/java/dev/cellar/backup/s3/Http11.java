package dev.cellar.backup.s3;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A minimal HTTP/1.1 client over one kept-alive connection, for {@link S3Client}: the brief's lean
 * socket client. Blocking sockets, one request at a time. An upload over plain HTTP goes from the
 * file to the socket with {@link FileChannel#transferTo} (the kernel's {@code sendfile}: the bytes
 * never enter the JVM); over HTTPS through the TLS socket's stream. A response body goes to a file
 * or to a bounded array as it arrives, with {@code Content-Length} or chunked framing.
 *
 * <p>Measured against the JDK's {@code java.net.http.HttpClient} on the backup benchmark, whose
 * asynchronous HTTP/1.1 path moved 8 MiB bodies at about half the rate of the AWS SDK's Apache
 * client here; see docs/benchmarks.md.
 *
 * <p>Not thread-safe: {@link S3Client} serializes its requests.
 */
final class Http11 implements AutoCloseable {
  /** Largest body read into memory (listings, errors, manifests). */
  static final int MAX_IN_MEMORY = 64 << 20;

  private static final int TIMEOUT_MILLIS = 5 * 60 * 1000;
  private static final int CONNECT_MILLIS = 10_000;

  private final URI endpoint;
  private Socket socket;
  private SocketChannel channel; // plain HTTP only: for sendfile
  private InputStream in;
  private OutputStream out;

  Http11(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** What came back: the status, the headers (names in lower case), and the body if kept. */
  record Response(int status, Map<String, String> headers, byte[] body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /** Where a request's body comes from. */
  sealed interface Body {
    long length();
  }

  record NoBody() implements Body {
    @Override
    public long length() {
      return 0;
    }
  }

  record Bytes(byte[] bytes) implements Body {
    @Override
    public long length() {
      return bytes.length;
    }
  }

  record FileRange(FileChannel file, long offset, long length) implements Body {}

  /**
   * Sends a request and reads its response: the body into {@code into} (a file, or a channel that
   * also digests what passes) if given and the status is 2xx, else into memory. A failure closes
   * the connection; the next request opens a new one.
   */
  Response exchange(
      String method,
      String target,
      Map<String, String> headers,
      Body body,
      WritableByteChannel into)
      throws IOException {
    boolean fresh = socket == null;
    try {
      return send(method, target, headers, body, into);
    } catch (IOException e) {
      close();
      if (fresh || body instanceof FileRange) {
        throw e;
      }
      // A kept-alive connection the server had closed: once more on a new one.
      return send(method, target, headers, body, into);
    }
  }

  private Response send(
      String method,
      String target,
      Map<String, String> headers,
      Body body,
      WritableByteChannel into)
      throws IOException {
    if (socket == null) {
      open();
    }
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
    head.append("Host: ").append(hostHeader()).append("\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    if (!(body instanceof NoBody) || method.equals("PUT") || method.equals("POST")) {
      head.append("Content-Length: ").append(body.length()).append("\r\n");
    }
    head.append("\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.UTF_8);
    switch (body) {
      case NoBody n -> writeAll(headBytes);
      case Bytes b -> {
        writeAll(headBytes);
        writeAll(b.bytes());
      }
      case FileRange f -> {
        writeAll(headBytes);
        sendFile(f);
      }
    }
    out.flush();
    return read(method, into);
  }

  /** {@code host[:port]}, as the request was signed for. */
  String hostHeader() {
    return endpoint.getPort() < 0
        ? endpoint.getHost()
        : endpoint.getHost() + ":" + endpoint.getPort();
  }

  private void open() throws IOException {
    boolean tls = "https".equals(endpoint.getScheme());
    int port = endpoint.getPort() >= 0 ? endpoint.getPort() : tls ? 443 : 80;
    InetSocketAddress address = new InetSocketAddress(endpoint.getHost(), port);
    if (tls) {
      SSLSocket s = (SSLSocket) SSLSocketFactory.getDefault().createSocket();
      s.connect(address, CONNECT_MILLIS);
      var parameters = s.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      s.setSSLParameters(parameters);
      s.startHandshake();
      socket = s;
    } else {
      channel = SocketChannel.open();
      channel.socket().connect(address, CONNECT_MILLIS);
      socket = channel.socket();
    }
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(TIMEOUT_MILLIS);
    in = new java.io.BufferedInputStream(socket.getInputStream(), 64 << 10);
    out = new java.io.BufferedOutputStream(socket.getOutputStream(), 64 << 10);
  }

  private void writeAll(byte[] bytes) throws IOException {
    if (channel != null) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    } else {
      out.write(bytes);
    }
  }

  private void sendFile(FileRange f) throws IOException {
    long sent = 0;
    if (channel != null) {
      while (sent < f.length()) {
        long n = f.file().transferTo(f.offset() + sent, f.length() - sent, channel);
        if (n <= 0 && f.file().size() < f.offset() + f.length()) {
          throw new EOFException("the file ended early: it changed during the upload");
        }
        sent += n;
      }
      return;
    }
    ByteBuffer buffer = ByteBuffer.allocate(256 << 10);
    while (sent < f.length()) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), f.length() - sent));
      int n = f.file().read(buffer, f.offset() + sent);
      if (n < 0) {
        throw new EOFException("the file ended early: it changed during the upload");
      }
      out.write(buffer.array(), 0, n);
      sent += n;
    }
  }

  private Response read(String method, WritableByteChannel into) throws IOException {
    String statusLine = line();
    if (!statusLine.startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP response: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    Map<String, String> headers = new TreeMap<>();
    for (String line = line(); !line.isEmpty(); line = line()) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
    }
    boolean close = "close".equalsIgnoreCase(headers.get("connection"));
    byte[] body = null;
    boolean none = method.equals("HEAD") || status == 204 || status == 304 || status / 100 == 1;
    if (!none) {
      WritableByteChannel sink = status / 100 == 2 ? into : null;
      boolean chunked = "chunked".equalsIgnoreCase(headers.get("transfer-encoding"));
      String length = headers.get("content-length");
      if (chunked) {
        body = readChunked(sink);
      } else if (length != null) {
        body = readFixed(Long.parseLong(length), sink);
      } else {
        body = readFixed(Long.MAX_VALUE, sink); // until the server closes
        close = true;
      }
    }
    if (close) {
      close();
    }
    return new Response(status, headers, body);
  }

  private byte[] readFixed(long length, WritableByteChannel sink) throws IOException {
    ByteArrayOutputStream memory = sink == null ? new ByteArrayOutputStream() : null;
    byte[] buffer = new byte[256 << 10];
    long left = length;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        if (length == Long.MAX_VALUE) {
          break;
        }
        throw new EOFException("the response ended " + left + " bytes early");
      }
      if (sink != null) {
        ByteBuffer b = ByteBuffer.wrap(buffer, 0, n);
        while (b.hasRemaining()) {
          sink.write(b);
        }
      } else {
        if (memory.size() + n > MAX_IN_MEMORY) {
          throw new IOException("a response body over " + MAX_IN_MEMORY + " bytes");
        }
        memory.write(buffer, 0, n);
      }
      left -= n;
    }
    return memory == null ? null : memory.toByteArray();
  }

  private byte[] readChunked(WritableByteChannel sink) throws IOException {
    ByteArrayOutputStream memory = sink == null ? new ByteArrayOutputStream() : null;
    while (true) {
      String size = line();
      int semicolon = size.indexOf(';');
      long n = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (n == 0) {
        while (!line().isEmpty()) {
          // trailers: none that matter here
        }
        return memory == null ? null : memory.toByteArray();
      }
      byte[] chunk = readFixed(n, sink);
      if (memory != null) {
        if (memory.size() + chunk.length > MAX_IN_MEMORY) {
          throw new IOException("a response body over " + MAX_IN_MEMORY + " bytes");
        }
        memory.write(chunk);
      }
      if (!line().isEmpty()) {
        throw new IOException("a chunk not followed by CRLF");
      }
    }
  }

  /** A header line, without its CRLF. */
  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new EOFException("the connection closed in a response header");
      }
      if (line.length() > 64 * 1024) {
        throw new IOException("a response header line over 64 KiB");
      }
      line.append((char) c);
    }
    int end = line.length();
    if (end > 0 && line.charAt(end - 1) == '\r') {
      line.setLength(end - 1);
    }
    return line.toString();
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    socket = null;
    channel = null;
    in = null;
    out = null;
  }
}
