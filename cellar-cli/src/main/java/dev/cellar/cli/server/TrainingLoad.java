package dev.cellar.cli.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The load of the start-up cache's training run ({@link TrainingCommand}): what a server spends its
 * first seconds on, so that those methods are profiled, and the classes they need loaded, in the
 * training JVM. PING, then SET and GET at pipeline 1 (the request path one reply at a time) and at
 * pipeline 16 (batched reads and flushes), MSET and MGET, INFO, the collection commands
 * redis-benchmark runs (pushes, pops and ranges of a list, SADD and SPOP, HSET, ZADD and ZPOPMIN,
 * XADD) on collections large enough to spread and on small packed ones, the HTTP endpoints
 * (key-value, info, stats, metrics, health, the dashboard), and finally SHUTDOWN.
 *
 * <p>The counts are large enough for the JIT to compile the request path at its top tier (some ten
 * thousand calls of each method) several times over, and small enough to take seconds. It is a
 * plain blocking client over {@link Socket}: what it loads goes into the cache too, and it is
 * little. Replies are read and checked for errors, never timed.
 */
final class TrainingLoad implements Runnable {
  private static final int PIPELINE_1_REQUESTS = 40_000;
  private static final int PIPELINED_REQUESTS = 200_000;
  private static final int DEPTH = 16;
  private static final int KEYS = 10_000;
  private static final int MULTI_KEY_REQUESTS = 5_000;
  private static final int HTTP_ROUNDS = 100;

  /**
   * Requests of each collection command: a collection command runs several times the code a SET
   * runs (headers, elements, atomic units), and without profiles a server's first collection
   * requests ran at a fraction of its steady rate for its first million (docs/benchmarks.md).
   */
  private static final int COLLECTION_REQUESTS = 40_000;

  /** Members that large collections cycle through: well past the 128 at which they spread. */
  private static final int MEMBERS = 20_000;

  /** Small collections (packed in their header) the packed path is trained on. */
  private static final int SMALL_COLLECTIONS = 1_000;

  private static final byte[] CRLF = {'\r', '\n'};

  private final int port;
  private final int httpPort;
  private long replies;
  private volatile Exception failure;

  TrainingLoad(int port, int httpPort) {
    this.port = port;
    this.httpPort = httpPort;
  }

  @Override
  public void run() {
    try (Socket socket = connect(port)) {
      socket.setTcpNoDelay(true);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
      InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      resp(out, in, 1, 1_000, i -> command("PING"));
      byte[] value = new byte[64];
      resp(out, in, 1, PIPELINE_1_REQUESTS, i -> command("SET", key(i), value));
      resp(out, in, 1, PIPELINE_1_REQUESTS, i -> command("GET", key(i)));
      resp(out, in, DEPTH, PIPELINED_REQUESTS, i -> command("SET", key(i), value));
      resp(out, in, DEPTH, PIPELINED_REQUESTS, i -> command("GET", key(i)));
      resp(
          out,
          in,
          1,
          MULTI_KEY_REQUESTS,
          i -> command("MSET", key(i), value, key(i + 1), value, key(i + 2), value));
      resp(out, in, 1, MULTI_KEY_REQUESTS, i -> command("MGET", key(i), key(i + 1), key(i + 2)));
      resp(out, in, 1, 200, i -> command("INFO"));
      collections(out, in, value);
      for (int i = 0; i < HTTP_ROUNDS; i++) {
        http("PUT", "/v1/kv/http:" + i, "value " + i);
        http("GET", "/v1/kv/http:" + i, null);
        http("GET", List.of("/v1/info", "/v1/stats", "/metrics", "/healthz", "/").get(i % 5), null);
      }
      out.write(command("SHUTDOWN"));
      out.flush();
      // Until the server closes the connection: closing first could let the server see the close
      // before the command, and then it never stops (the training waits on it for good).
      while (in.read() >= 0) {
        // a successful SHUTDOWN answers nothing
      }
    } catch (Exception e) {
      failure = e;
      shutDownAfterFailure();
    }
  }

  /** The collection commands, at pipeline 16 as redis-benchmark runs them. */
  private void collections(OutputStream out, InputStream in, byte[] value) throws IOException {
    int n = COLLECTION_REQUESTS;
    resp(out, in, DEPTH, n, i -> command("LPUSH", "training:list", value));
    resp(out, in, DEPTH, n, i -> command("RPUSH", "training:list", value));
    resp(out, in, DEPTH, n / 4, i -> command("LRANGE", "training:list", "0", "99"));
    resp(out, in, DEPTH, n / 2, i -> command("LPOP", "training:list"));
    resp(out, in, DEPTH, n / 2, i -> command("RPOP", "training:list"));
    resp(out, in, DEPTH, n, i -> command("SADD", "training:set", member(i)));
    resp(out, in, DEPTH, n / 4, i -> command("SPOP", "training:set"));
    resp(out, in, DEPTH, n, i -> command("HSET", "training:hash", member(i), value));
    resp(out, in, DEPTH, n, i -> command("ZADD", "training:zset", Integer.toString(i), member(i)));
    resp(out, in, DEPTH, n / 4, i -> command("ZPOPMIN", "training:zset"));
    resp(out, in, DEPTH, n / 2, i -> command("XADD", "training:stream", "*", "field", value));
    resp(out, in, DEPTH, n, i -> command("RPUSH", small("list", i), value));
    resp(out, in, DEPTH, n, i -> command("HSET", small("hash", i), "f" + i % 5, value));
    resp(out, in, DEPTH, n, i -> command("SADD", small("set", i), "m" + i % 5));
    resp(out, in, DEPTH, n / 2, i -> command("LPOP", small("list", i)));
  }

  private static String member(int i) {
    return "element:" + i % MEMBERS;
  }

  private static String small(String type, int i) {
    return "training:" + type + ":" + i % SMALL_COLLECTIONS;
  }

  /**
   * The server's thread waits for a stop, so a failed load must still stop it, or the training (and
   * the launcher waiting on it) would never end. Best effort: a server that never listened has
   * ended its start already.
   */
  private void shutDownAfterFailure() {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.getOutputStream().write(command("SHUTDOWN"));
      socket.getOutputStream().flush();
      socket.getInputStream().read();
    } catch (IOException notListening) {
      // nothing to stop
    }
  }

  Exception failure() {
    return failure;
  }

  String summary() {
    return replies + " RESP replies and " + 3 * HTTP_ROUNDS + " HTTP requests served";
  }

  private interface Request {
    byte[] encode(int i);
  }

  /** Sends {@code count} requests, {@code depth} at a time, reading each batch's replies. */
  private void resp(OutputStream out, InputStream in, int depth, int count, Request request)
      throws IOException {
    for (int sent = 0; sent < count; sent += depth) {
      int batch = Math.min(depth, count - sent);
      for (int i = 0; i < batch; i++) {
        out.write(request.encode(sent + i));
      }
      out.flush();
      for (int i = 0; i < batch; i++) {
        readReply(in);
        replies++;
      }
    }
  }

  private static String key(int i) {
    return "key:" + (i % KEYS);
  }

  private static byte[] command(Object... parts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(("*" + parts.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (Object part : parts) {
      byte[] b =
          part instanceof byte[] raw ? raw : part.toString().getBytes(StandardCharsets.UTF_8);
      bytes.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      bytes.writeBytes(b);
      bytes.writeBytes(CRLF);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads one RESP2 reply; an error reply fails the training (the load sends only valid commands).
   */
  private static void readReply(InputStream in) throws IOException {
    String line = readLine(in);
    switch (line.charAt(0)) {
      case '+', ':' -> {}
      case '-' -> throw new IOException("the server answered " + line);
      case '$' -> {
        int length = Integer.parseInt(line.substring(1));
        if (length >= 0) {
          in.readNBytes(length + 2);
        }
      }
      case '*' -> {
        int count = Integer.parseInt(line.substring(1));
        for (int i = 0; i < count; i++) {
          readReply(in);
        }
      }
      default -> throw new IOException("not a RESP reply: " + line);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != '\r'; b = in.read()) {
      if (b < 0) {
        throw new EOFException("the server closed the connection");
      }
      line.append((char) b);
    }
    in.read();
    return line.toString();
  }

  /** One HTTP/1.1 request on its own connection, read to the end; anything but 2xx fails. */
  private void http(String method, String path, String body) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), httpPort)) {
      byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head =
          method
              + " "
              + path
              + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: "
              + content.length
              + "\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      String response =
          new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      if (!response.startsWith("HTTP/1.1 2")) {
        throw new IOException(
            method + " " + path + " answered " + response.lines().findFirst().orElse("nothing"));
      }
    }
  }

  /**
   * The server starts on another thread of this JVM: wait for it to listen (it opens the store
   * first). A start that fails ends the server's thread by itself; one that takes minutes is given
   * them.
   */
  private static Socket connect(int port) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (true) {
      try {
        return new Socket(InetAddress.getLoopbackAddress(), port);
      } catch (ConnectException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the server did not listen on port " + port + " within 300 s", e);
        }
        Thread.sleep(10);
      }
    }
  }
}
