package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clients that send part of a request and then reset the connection (SO_LINGER 0, close) must be
 * released, on every transport and on both protocols: their channel closed, their descriptor given
 * back, and {@code INFO clients} counting only the clients really connected. On io_uring, a few
 * hundred of every thousand such clients had stayed open for good (800 of 3,000 in this test), and
 * after about ten thousand every new client was refused (see {@link DeadPeerSweep}).
 */
class ResetMidRequestTest {
  private static final int RESETS = 3000;

  /**
   * Partial requests of each kind a reader can be in the middle of: a bulk, a header, an inline
   * line.
   */
  private static final List<String> RESP_PARTS =
      List.of(
          "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$100\r\nabc", "*2\r\n$3\r\nGET\r\n$1", "PING", "*1\r\n");

  private static final List<String> HTTP_PARTS =
      List.of(
          "GET /v1/kv/key HTTP/1.1\r\nHost: x\r\n",
          "PUT /v1/kv/key HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc",
          "GE");

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void clientsResetMidRequestAreAllReleased(String transport) throws Exception {
    assumeTrue(Transport.available(transport), transport + " does not load on this machine");
    try (CellarServer server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", Integer.toString(BufferLeakTest.freePort()))
                .set("dir", dir.toString())
                .set("transport", transport))) {
      long socketsBefore = openSockets();
      resetMidRequest(server.port(), RESP_PARTS);
      resetMidRequest(server.httpPort(), HTTP_PARTS);
      long deadline = System.nanoTime() + 10_000_000_000L;
      String clients;
      long sockets;
      do {
        Thread.sleep(50);
        clients = connectedClients(server.port());
        sockets = openSockets();
      } while ((!clients.equals("1") || sockets > socketsBefore) && System.nanoTime() < deadline);
      assertEquals(
          "1",
          clients,
          "INFO clients after " + RESETS + " RESP resets mid-request on " + transport);
      assertTrue(
          sockets <= socketsBefore,
          "open sockets "
              + socketsBefore
              + " before, "
              + sockets
              + " after "
              + RESETS
              + " RESP and "
              + RESETS
              + " HTTP resets on "
              + transport);
      try (RawClient c = new RawClient(server.port())) {
        assertEquals("+PONG\r\n", c.send("PING").readLine());
      }
    }
  }

  private static void resetMidRequest(int port, List<String> parts) throws IOException {
    for (int i = 0; i < RESETS; i++) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port));
        s.getOutputStream().write(parts.get(i % parts.size()).getBytes(StandardCharsets.US_ASCII));
        s.setSoLinger(true, 0);
      }
    }
  }

  /**
   * {@code connected_clients} from INFO, read over a connection of its own (which counts as one).
   */
  private static String connectedClients(int port) throws IOException {
    try (RawClient c = new RawClient(port)) {
      String header = c.send("INFO", "clients").readLine();
      String info = c.read(Integer.parseInt(header.substring(1).trim()) + 2);
      return info.lines()
          .filter(l -> l.startsWith("connected_clients:"))
          .findFirst()
          .orElseThrow()
          .substring(18);
    }
  }

  /** Sockets this JVM holds open: the server's, since the test closes every one of its own. */
  private static long openSockets() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              fd -> {
                try {
                  return Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (IOException gone) {
                  return false;
                }
              })
          .count();
    }
  }
}
