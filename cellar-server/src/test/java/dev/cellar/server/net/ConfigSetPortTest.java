package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code CONFIG SET port} moves plaintext RESP to another port while the server runs, as Redis
 * does: the new port is bound before the old one closes, connections already made stay, a port that
 * is taken is refused with Redis's words and leaves the server where it was, and port 0 stops
 * plaintext RESP until a port is set again. With one event loop the command runs on the loop that
 * would otherwise have to register the new port, which is the case that could hang.
 */
class ConfigSetPortTest {
  @TempDir Path dir;
  CellarServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "2"})
  void thePortMovesAndATakenPortLeavesItWhereItWas(String loops) throws IOException {
    server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", "0")
                .set("ipc", "no")
                .set("dir", dir.toString())
                .set("io-threads", loops));
    int first = server.port();
    int second = freePort();
    try (RawClient old = new RawClient(first)) {
      assertEquals(
          "+OK\r\n", old.send("CONFIG", "SET", "port", Integer.toString(second)).readLine());
      assertEquals(second, server.port());
      assertEquals("+PONG\r\n", old.send("PING").readLine(), "a connection made before stays");
      assertTrue(refused(first), "the old port is closed");
      try (RawClient moved = new RawClient(second)) {
        assertEquals("+PONG\r\n", moved.send("PING").readLine());
        moved.send("CONFIG", "GET", "port");
        assertEquals("*2\r\n", moved.readLine());
        moved.readLine();
        moved.readLine();
        moved.readLine();
        assertEquals(Integer.toString(second) + "\r\n", moved.readLine());

        try (ServerSocket taken = new ServerSocket()) {
          taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
          String refused =
              moved
                  .send("CONFIG", "SET", "port", Integer.toString(taken.getLocalPort()))
                  .readLine();
          assertTrue(
              refused.startsWith(
                  "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen"
                      + " on this port"),
              refused);
        }
        assertEquals(second, server.port());
        try (RawClient again = new RawClient(second)) {
          assertEquals("+PONG\r\n", again.send("PING").readLine(), "still listening");
        }
        String notANumber = moved.send("CONFIG", "SET", "port", "high").readLine();
        assertTrue(notANumber.startsWith("-ERR CONFIG SET failed"), notANumber);

        // Port 0 stops plaintext RESP, as in Redis; a port set after it listens again.
        assertEquals("+OK\r\n", moved.send("CONFIG", "SET", "port", "0").readLine());
        assertEquals(0, server.port());
        assertTrue(refused(second), "nothing listens after port 0");
        assertEquals("+PONG\r\n", moved.send("PING").readLine());
        int third = freePort();
        assertEquals(
            "+OK\r\n", moved.send("CONFIG", "SET", "port", Integer.toString(third)).readLine());
        try (RawClient last = new RawClient(third)) {
          assertEquals("+PONG\r\n", last.send("PING").readLine());
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return probe.getLocalPort();
    }
  }

  private static boolean refused(int port) {
    assertThrows(
        IOException.class,
        () -> {
          try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
          }
        });
    return true;
  }
}
