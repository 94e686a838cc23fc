package dev.cellar.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A peer that completes the handshake and then never answers: a hung server, which no real server
 * can be made to be on demand. The synchronous call gives up after the response timeout and drops
 * the connection (its reply could still come); a future fails with a timeout.
 */
class ResponseTimeoutTest {
  /** Answers the first command of each connection (HELLO) with an empty map, then only reads. */
  static final class SilentPeer implements AutoCloseable {
    final ServerSocket listener = new ServerSocket(0);
    final AtomicInteger accepted = new AtomicInteger();
    final List<Socket> sockets = new ArrayList<>();

    SilentPeer() throws IOException {
      Thread.ofPlatform().daemon().start(this::serve);
    }

    private void serve() {
      try {
        while (true) {
          Socket s = listener.accept();
          accepted.incrementAndGet();
          synchronized (sockets) {
            sockets.add(s);
          }
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (InputStream in = s.getInputStream()) {
                      in.read(new byte[4096]); // HELLO 3 arrives in one small write
                      s.getOutputStream().write("%0\r\n".getBytes(StandardCharsets.US_ASCII));
                      while (in.read(new byte[4096]) >= 0) {
                        // swallow every command
                      }
                    } catch (IOException e) {
                      // the client closed it
                    }
                  });
        }
      } catch (IOException e) {
        // closed
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      synchronized (sockets) {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }

  @Test
  void aCallWithoutAReplyFailsAfterTheTimeoutAndTheNextCallReconnects() throws Exception {
    try (SilentPeer peer = new SilentPeer();
        CellarClient client =
            CellarClient.connect(
                "cellar://127.0.0.1:" + peer.listener.getLocalPort(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.TCP)
                    .withResponseTimeout(Duration.ofMillis(300)))) {
      long start = System.nanoTime();
      CellarConnectionException e = assertThrows(CellarConnectionException.class, client::ping);
      assertTrue(System.nanoTime() - start >= 250_000_000L, "waited for the timeout");
      assertTrue(e.getMessage().contains("no reply within 300 ms"), e.getMessage());
      assertEquals(1, peer.accepted.get());

      assertThrows(CellarConnectionException.class, client::ping);
      assertEquals(2, peer.accepted.get(), "the next call opened a new connection");

      ExecutionException async =
          assertThrows(ExecutionException.class, () -> client.async().ping().get());
      assertInstanceOf(TimeoutException.class, async.getCause());
    }
  }
}
