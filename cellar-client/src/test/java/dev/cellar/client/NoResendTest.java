package dev.cellar.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A peer that answers the handshake, reads the first command and then drops the connection without
 * a reply, as a server that dies while it runs the command. It counts what arrives over all
 * connections, which no real server can be made to report after dying: the client fails the call,
 * connects again for the next one, and never sends the command a second time.
 */
class NoResendTest {
  static final class DroppingPeer implements AutoCloseable {
    final ServerSocket listener = new ServerSocket(0);
    final AtomicInteger connections = new AtomicInteger();
    final StringBuffer received = new StringBuffer(); // every command after HELLO, all connections

    DroppingPeer() throws IOException {
      Thread.ofPlatform().daemon().start(this::serve);
    }

    private void serve() {
      while (true) {
        try (Socket s = listener.accept()) {
          connections.incrementAndGet();
          InputStream in = s.getInputStream();
          readCommand(in); // HELLO 3
          s.getOutputStream().write("%0\r\n".getBytes(StandardCharsets.US_ASCII));
          received.append(readCommand(in)).append('|');
          s.setSoLinger(true, 0); // as a killed process's socket: reset, nothing more
        } catch (IOException e) {
          return;
        }
      }
    }

    /** Bytes until the client pauses: one command, or a whole pipeline, as the client writes it. */
    private static String readCommand(InputStream in) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[65536];
      do {
        int n = in.read(chunk);
        if (n < 0) {
          break;
        }
        out.write(chunk, 0, n);
      } while (in.available() > 0 || !endsWithCrlf(out));
      return out.toString(StandardCharsets.UTF_8).replace("\r\n", " ").trim();
    }

    private static boolean endsWithCrlf(ByteArrayOutputStream out) {
      byte[] b = out.toByteArray();
      return b.length >= 2 && b[b.length - 2] == '\r' && b[b.length - 1] == '\n';
    }

    @Override
    public void close() throws IOException {
      listener.close();
    }
  }

  @Test
  void aCommandWhoseConnectionDropsFailsAndIsNeverSentAgain() throws Exception {
    try (DroppingPeer peer = new DroppingPeer();
        CellarClient client =
            CellarClient.connect(
                "cellar://127.0.0.1:" + peer.listener.getLocalPort(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.TCP) // a scripted TCP peer: count its sockets
                    .withResponseTimeout(Duration.ofSeconds(10)))) {
      byte[] key = "n".getBytes(StandardCharsets.US_ASCII);
      CellarConnectionException sync =
          assertThrows(CellarConnectionException.class, () -> client.incr(key));
      assertTrue(sync.getMessage().contains("not sent again"), sync.getMessage());

      Pipeline p = client.pipeline();
      Pipeline.Result<Long> first = p.incr(key);
      Pipeline.Result<Void> second = p.set(key, key);
      assertThrows(CellarConnectionException.class, p::sync);
      assertThrows(CellarConnectionException.class, first::get);
      assertThrows(CellarConnectionException.class, second::get);

      ExecutionException async =
          assertThrows(ExecutionException.class, () -> client.async().incr(key).get());
      assertInstanceOf(CellarConnectionException.class, async.getCause());

      // Three connections for the three failures (the sync one was made by connect), and each
      // command arrived exactly once.
      Thread.sleep(100);
      assertEquals(3, peer.connections.get());
      assertEquals(
          "*2 $4 INCR $1 n|" + "*2 $4 INCR $1 n *3 $3 SET $1 n $1 n|" + "*2 $4 INCR $1 n|",
          peer.received.toString());
    }
  }
}
