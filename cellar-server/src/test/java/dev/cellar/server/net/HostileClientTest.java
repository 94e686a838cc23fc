package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that try to exhaust the server: requests before AUTH, many large requests that stall,
 * replies larger than the clients' memory budget, requests trickled in tiny pieces. Each gets a
 * clear error or a logged disconnect, and clients that behave stay served.
 */
class HostileClientTest {
  @TempDir Path dir;

  private CellarServer start(String... settings) {
    ServerConfig config =
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", dir.resolve("data").toString());
    for (int i = 0; i + 1 < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    return CellarServer.start(config);
  }

  @Test
  void beforeAuthLongRequestsAndLargeBulksAreRefusedAsRedisRefusesThem() throws IOException {
    try (CellarServer server = start("requirepass", "secret")) {
      try (RawClient c = new RawClient(server.port())) {
        c.send("*100\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("-ERR Protocol error: unauthenticated multibulk length\r\n", c.readLine());
        assertTrue(c.closedByPeer());
      }
      try (RawClient c = new RawClient(server.port())) {
        c.send("*1\r\n$1000000\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("-ERR Protocol error: unauthenticated bulk length\r\n", c.readLine());
        assertTrue(c.closedByPeer());
      }
      // AUTH and a large SET in one write: the SET is read after the AUTH succeeded, as in Redis.
      try (RawClient c = new RawClient(server.port())) {
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.writeBytes(RawClient.command("AUTH", "secret"));
        both.writeBytes(RawClient.command("SET", "big", "v".repeat(100_000)));
        c.send(both.toByteArray());
        assertEquals("+OK\r\n", c.readLine());
        assertEquals("+OK\r\n", c.readLine());
        assertEquals(":100000\r\n", c.send("STRLEN", "big").readLine());
      }
    }
  }

  /**
   * The attack: twelve clients each send most of a 56 MB MSET and stall. In a server JVM
   * with the launcher's 1 GiB heap, this had ended in {@code OutOfMemoryError}; now the clients
   * holding the most are disconnected once all buffers pass maxmemory-clients (25% of the heap).
   */
  @Test
  void twelveStalledLargeRequestsAreCutOffBeforeTheHeapIsGone() throws Exception {
    byte[] value = new byte[1 << 20];
    Arrays.fill(value, (byte) 'x');
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    int pairs = 56;
    wire.writeBytes(
        ("*" + (1 + 2 * pairs) + "\r\n$4\r\nMSET\r\n").getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < pairs; i++) {
      wire.writeBytes(
          ("$3\r\nk" + (10 + i) + "\r\n$" + value.length + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      wire.writeBytes(value);
      wire.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    byte[] mostOf = Arrays.copyOf(wire.toByteArray(), wire.size() - (4 << 20));
    try (ServerJvm server = ServerJvm.start(dir, "client-query-buffer-limit", "128mb")) {
      ExecutorService senders = Executors.newFixedThreadPool(12);
      List<Socket> sockets = new ArrayList<>();
      List<Future<?>> sent = new ArrayList<>();
      try {
        for (int i = 0; i < 12; i++) {
          Socket s = new Socket("127.0.0.1", server.port());
          sockets.add(s);
          sent.add(
              senders.submit(
                  () -> {
                    try (OutputStream out = s.getOutputStream()) {
                      for (int at = 0; at < mostOf.length; at += 1 << 20) {
                        out.write(mostOf, at, Math.min(1 << 20, mostOf.length - at));
                      }
                      Thread.sleep(1000); // stall, holding the request open
                    } catch (IOException | InterruptedException disconnected) {
                      // the server cut this one off
                    }
                    return null;
                  }));
        }
        for (Future<?> f : sent) {
          f.get(120, TimeUnit.SECONDS);
        }
        assertTrue(server.alive(), "the server died:\n" + server.output());
        assertFalse(server.output().contains("OutOfMemoryError"), server.output());
        assertTrue(server.infoNumber("stats", "evicted_clients") > 0, "no client was evicted");
        assertTrue(server.output().contains("maxmemory-clients"), server.output());
        try (RawClient good = new RawClient(server.port())) {
          assertEquals("+PONG\r\n", good.send("PING").readLine());
        }
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
        senders.shutdownNow();
      }
    }
  }

  @Test
  void aReplyLargerThanTheClientsBudgetIsRefusedAndTheClientStays() throws IOException {
    try (CellarServer server = start("maxmemory-clients", "8mb", "proto-max-bulk-len", "8mb");
        RawClient c = new RawClient(server.port())) {
      String value = "v".repeat(1_500_000);
      assertEquals("+OK\r\n", c.send("SET", "k", value).readLine());
      String reply = c.send("MGET", "k", "k", "k", "k", "k", "k").readLine();
      assertTrue(reply.startsWith("-ERR reply of more than"), () -> "[" + reply + "]");
      assertTrue(reply.contains("maxmemory-clients"), reply);
      assertEquals("+PONG\r\n", c.send("PING").readLine());
      assertEquals("$1500000", c.send("GET", "k").readLine().trim());
    }
  }

  /**
   * A 200,000-argument MSET trickled in 50-byte pieces is read incrementally: it completes, and a
   * client pinging meanwhile is answered. (Its CPU cost against redis-server's is measured in
   * docs/benchmarks.md; {@code RequestParserTest} checks that headers already read are not read
   * again.)
   */
  @Test
  void aHugeRequestTrickledInTinyPiecesCompletesWhileOthersAreServed() throws Exception {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    int pairs = 100_000;
    wire.writeBytes(
        ("*" + (1 + 2 * pairs) + "\r\n$4\r\nMSET\r\n").getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < pairs; i++) {
      String k = "key:" + i;
      wire.writeBytes(
          ("$" + k.length() + "\r\n" + k + "\r\n$1\r\nv\r\n").getBytes(StandardCharsets.US_ASCII));
    }
    byte[] bytes = wire.toByteArray();
    try (CellarServer server = start();
        Socket slow = new Socket("127.0.0.1", server.port());
        RawClient pinger = new RawClient(server.port())) {
      slow.setTcpNoDelay(true);
      OutputStream out = slow.getOutputStream();
      for (int at = 0; at < bytes.length; at += 50) {
        out.write(bytes, at, Math.min(50, bytes.length - at));
        if (at % 500_000 == 0) {
          assertEquals("+PONG\r\n", pinger.send("PING").readLine());
        }
      }
      out.flush();
      byte[] ok = slow.getInputStream().readNBytes(5);
      assertEquals("+OK\r\n", new String(ok, StandardCharsets.US_ASCII));
      assertEquals(":" + pairs + "\r\n", pinger.send("DBSIZE").readLine());
    }
  }

  /**
   * Half-sent headers (a slowloris) are cut at http-header-timeout; idle keep-alive at
   * http-idle-timeout.
   */
  @Test
  void httpConnectionsThatStallInHeadersOrSitIdleAreClosed() throws Exception {
    int httpPort = BufferLeakTest.freePort();
    try (CellarServer server =
        start(
            "http-port",
            Integer.toString(httpPort),
            "http-header-timeout",
            "1",
            "http-idle-timeout",
            "2")) {
      List<Socket> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < 200; i++) {
          Socket s = new Socket("127.0.0.1", httpPort);
          s.setSoTimeout(10_000);
          s.getOutputStream()
              .write(
                  "GET /v1/kv/key HTTP/1.1\r\nHost: x\r\nX-Slow: "
                      .getBytes(StandardCharsets.US_ASCII));
          stalled.add(s);
        }
        for (Socket s : stalled) {
          assertEquals(
              -1,
              s.getInputStream().read(),
              "a connection with half its headers was answered or kept");
        }
      } finally {
        for (Socket s : stalled) {
          s.close();
        }
      }
      try (Socket s = new Socket("127.0.0.1", httpPort)) {
        s.setSoTimeout(10_000);
        s.getOutputStream()
            .write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        String head = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
        assertEquals("HTTP/1.1 200", head);
        long answered = System.nanoTime();
        s.getInputStream().readAllBytes(); // ends when the idle connection is closed
        assertTrue(
            System.nanoTime() - answered >= 1_500_000_000L, "closed before http-idle-timeout");
      }
    }
  }

  @Test
  void httpConnectionsOverTheCapAreAnswered503AndClosed() throws Exception {
    int httpPort = BufferLeakTest.freePort();
    try (CellarServer server =
        start("http-port", Integer.toString(httpPort), "http-maxclients", "5")) {
      List<Socket> open = new ArrayList<>();
      try {
        for (int i = 0; i < 5; i++) {
          Socket s = new Socket("127.0.0.1", httpPort);
          s.setSoTimeout(10_000);
          s.getOutputStream()
              .write(
                  "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          assertEquals(
              "HTTP/1.1 200",
              new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII));
          open.add(s);
        }
        try (Socket sixth = new Socket("127.0.0.1", httpPort)) {
          sixth.setSoTimeout(10_000);
          String answer =
              new String(sixth.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          assertTrue(answer.startsWith("HTTP/1.1 503"), answer);
          assertTrue(answer.contains("http-maxclients"), answer);
        }
      } finally {
        for (Socket s : open) {
          s.close();
        }
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        try (Socket again = new Socket("127.0.0.1", httpPort)) {
          again.setSoTimeout(10_000);
          again
              .getOutputStream()
              .write(
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                      .getBytes(StandardCharsets.US_ASCII));
          String answer;
          try {
            answer = new String(again.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          } catch (java.net.SocketException reset) {
            // Still over the cap: the 503 and close came before the server read the request, so
            // the kernel reset the connection (seen in CI). Refused, as a 503 would be.
            answer = "reset: " + reset.getMessage();
          }
          if (answer.startsWith("HTTP/1.1 200") || System.nanoTime() > deadline) {
            assertTrue(
                answer.startsWith("HTTP/1.1 200"),
                "still refused after the others closed: " + answer);
            break;
          }
        }
        Thread.sleep(50);
      }
    }
  }

  @Test
  void anHttpKeyOverTheKeyLimitIsTooLargeOnEveryMethod() throws Exception {
    int httpPort = BufferLeakTest.freePort();
    String key = "a".repeat(70_000);
    try (CellarServer server = start("http-port", Integer.toString(httpPort))) {
      for (String method : List.of("GET", "PUT", "DELETE")) {
        try (Socket s = new Socket("127.0.0.1", httpPort)) {
          s.setSoTimeout(10_000);
          String body = method.equals("PUT") ? "Content-Length: 1\r\n\r\nv" : "\r\n";
          s.getOutputStream()
              .write(
                  (method
                          + " /v1/kv/"
                          + key
                          + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                          + body)
                      .getBytes(StandardCharsets.US_ASCII));
          String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          assertTrue(
              answer.startsWith("HTTP/1.1 413"),
              method + ": " + answer.substring(0, Math.min(200, answer.length())));
        }
      }
    }
  }
}
