package dev.cellar.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code HELLO 3 AUTH} against a server started with {@code requirepass}. */
class AuthTest {
  @Test
  void thePasswordFromTheUriOrTheOptionsIsSentInTheHandshake(@TempDir Path dir) {
    try (TestServer server = TestServer.start(dir, "requirepass", "p@ss word")) {
      String host = "127.0.0.1:" + server.port();
      try (CellarClient c = CellarClient.connect("cellar://default:p%40ss%20word@" + host)) {
        assertEquals("PONG", c.ping());
      }
      try (CellarClient c = CellarClient.connect("cellar://:p%40ss%20word@" + host)) {
        assertEquals("PONG", c.ping());
      }
      try (CellarClient c =
          CellarClient.connect(
              "cellar://" + host,
              ClientOptions.defaults().withCredentials(null, "p@ss word").withClientName("app"))) {
        assertEquals("app", c.command("CLIENT", "GETNAME".getBytes()).asString());
      }

      CellarServerException none =
          assertThrows(CellarServerException.class, () -> CellarClient.connect("cellar://" + host));
      assertEquals("NOAUTH", none.code());
      CellarServerException wrong =
          assertThrows(
              CellarServerException.class, () -> CellarClient.connect("cellar://:guessed@" + host));
      assertEquals("WRONGPASS", wrong.code());
      assertFalse(wrong.getMessage().contains("guessed"), wrong.getMessage());
    }
  }

  @Test
  void noServerIsAConnectionFailure() throws Exception {
    int port;
    try (var socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    CellarConnectionException e =
        assertThrows(
            CellarConnectionException.class,
            () -> CellarClient.connect("cellar://127.0.0.1:" + port));
    assertEquals(true, e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
  }
}
