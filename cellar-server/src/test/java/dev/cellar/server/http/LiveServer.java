package dev.cellar.server.http;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real server on loopback for HTTP tests, with an HTTP client and a raw RESP socket. The RESP
 * port is ephemeral ({@code port 0}); {@code http-port 0} means "HTTP off", so the HTTP port is a
 * free one found first, and the start retried should another process take it meanwhile.
 */
final class LiveServer implements AutoCloseable {
  final CellarServer server;
  final HttpClient client = HttpClient.newHttpClient();
  private Socket resp;

  LiveServer(Path dir, Map<String, String> settings) {
    this.server = start(dir, settings);
  }

  private static CellarServer start(Path dir, Map<String, String> settings) {
    for (int attempt = 1; ; attempt++) {
      ServerConfig config =
          new ServerConfig()
              .set("port", "0")
              .set("http-port", Integer.toString(freePort()))
              .set("dir", dir.toString());
      settings.forEach(config::set);
      try {
        return CellarServer.start(config);
      } catch (IllegalStateException e) {
        if (attempt == 5 || !String.valueOf(e.getMessage()).contains("cannot listen")) {
          throw e;
        }
      }
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.httpPort() + pathAndQuery);
  }

  HttpResponse<byte[]> send(HttpRequest.Builder request) {
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<byte[]> get(String pathAndQuery) {
    return send(HttpRequest.newBuilder(uri(pathAndQuery)));
  }

  HttpResponse<byte[]> put(String pathAndQuery, byte[] body) {
    return send(
        HttpRequest.newBuilder(uri(pathAndQuery))
            .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  HttpResponse<byte[]> delete(String pathAndQuery) {
    return send(HttpRequest.newBuilder(uri(pathAndQuery)).DELETE());
  }

  /**
   * Sends one RESP command and returns its reply's raw bytes (a simple line, or a bulk string's
   * header and data).
   */
  byte[] resp(byte[]... args) {
    try {
      if (resp == null) {
        resp = new Socket("127.0.0.1", server.port());
      }
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (byte[] arg : args) {
        request.writeBytes(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        request.writeBytes(arg);
        request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      OutputStream out = resp.getOutputStream();
      out.write(request.toByteArray());
      out.flush();
      return readReply(resp.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  byte[] resp(String... args) {
    byte[][] bytes = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return resp(bytes);
  }

  private static byte[] readReply(InputStream in) throws IOException {
    ByteArrayOutputStream reply = new ByteArrayOutputStream();
    String line = readLine(in, reply);
    if (line.startsWith("$") && !line.equals("$-1")) {
      int length = Integer.parseInt(line.substring(1));
      reply.writeBytes(in.readNBytes(length + 2));
    }
    return reply.toByteArray();
  }

  private static String readLine(InputStream in, ByteArrayOutputStream copy) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("connection closed mid-reply");
      }
      copy.write(c);
      if (c != '\r') {
        line.append((char) c);
      }
    }
    copy.write('\n');
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    if (resp != null) {
      resp.close();
    }
    server.close();
  }
}
