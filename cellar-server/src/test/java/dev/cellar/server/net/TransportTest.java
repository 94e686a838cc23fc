package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each socket layer the server can run on, through real sockets: the same bytes in must give the
 * same bytes out whichever one Netty drives. The transports differ exactly where these tests look:
 * how a read that holds many requests, or a fraction of one, is delivered, and how a reply larger
 * than the socket buffer is written out.
 */
class TransportTest {
  @TempDir Path dir;

  /** Whether {@code transport} ("io_uring", "epoll" or "nio") loads on this machine. */
  static boolean available(String transport) {
    return Transport.available(transport);
  }

  private CellarServer start(String transport, String fsync) {
    assumeTrue(available(transport), transport + " does not load on this machine");
    return CellarServer.start(
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", dir.toString())
            .set("transport", transport)
            .set("appendfsync", fsync));
  }

  @Test
  void autoTakesIoUringWhereItLoadsAndEpollWhereOnlyThatDoes() {
    String expected = available("io_uring") ? "io_uring" : available("epoll") ? "epoll" : "nio";
    try (CellarServer server =
        CellarServer.start(
            new ServerConfig().set("port", "0").set("http-port", "0").set("dir", dir.toString()))) {
      assertEquals(expected, server.transport());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void aThousandPipelinedRequestsInOneWriteGetAThousandRepliesInOrder(String transport)
      throws IOException {
    try (CellarServer server = start(transport, "no");
        RawClient c = new RawClient(server.port())) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      StringBuilder expected = new StringBuilder();
      for (int i = 0; i < 1000; i++) {
        batch.writeBytes(RawClient.command("SET", "k" + i, "v" + i));
        expected.append("+OK\r\n");
      }
      for (int i = 0; i < 1000; i++) {
        batch.writeBytes(RawClient.command("GET", "k" + i));
        String v = "v" + i;
        expected.append('$').append(v.length()).append("\r\n").append(v).append("\r\n");
      }
      c.send(batch.toByteArray());
      assertEquals(expected.toString(), c.read(expected.length()));
      assertEquals("+PONG\r\n", c.send("PING").readLine());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void aRequestSentOneByteAtATimeIsAnsweredOnce(String transport) throws IOException {
    try (CellarServer server = start(transport, "no");
        RawClient c = new RawClient(server.port())) {
      for (byte b : RawClient.command("SET", "split", "value")) {
        c.send(new byte[] {b});
      }
      assertEquals("+OK\r\n", c.readLine());
      assertEquals("$5\r\nvalue\r\n", c.send("GET", "split").read(11));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void anEightMegabyteValueGoesInAndComesBackWhole(String transport) throws IOException {
    byte[] value = new byte[8 << 20];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) ('a' + i % 26);
    }
    try (CellarServer server = start(transport, "no");
        RawClient c = new RawClient(server.port())) {
      ByteArrayOutputStream set = new ByteArrayOutputStream();
      set.writeBytes("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$".getBytes(StandardCharsets.US_ASCII));
      set.writeBytes((value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      set.writeBytes(value);
      set.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      c.send(set.toByteArray());
      assertEquals("+OK\r\n", c.readLine());

      String header = "$" + value.length + "\r\n";
      String reply = c.send("GET", "big").read(header.length() + value.length + 2);
      assertTrue(reply.startsWith(header), () -> reply.substring(0, Math.min(40, reply.length())));
      byte[] body =
          Arrays.copyOfRange(
              reply.getBytes(StandardCharsets.ISO_8859_1),
              header.length(),
              header.length() + value.length);
      assertArrayEquals(value, body);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void aProtocolErrorClosesOnlyThatConnection(String transport) throws IOException {
    try (CellarServer server = start(transport, "no");
        RawClient bad = new RawClient(server.port());
        RawClient good = new RawClient(server.port())) {
      bad.send("*x\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("-ERR Protocol error: invalid multibulk length\r\n", bad.readLine());
      assertTrue(bad.closedByPeer());
      assertEquals("+PONG\r\n", good.send("PING").readLine());
    }
  }

  /**
   * Under {@code always} the reply waits for the fsync, which completes off the loop: the wake-up
   * crosses threads.
   */
  @ParameterizedTest
  @ValueSource(strings = {"io_uring", "epoll", "nio"})
  void alwaysRepliesAfterTheFsyncAndThePipelinedWritesSurviveARestart(String transport)
      throws IOException {
    try (CellarServer server = start(transport, "always");
        RawClient c = new RawClient(server.port())) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      for (int i = 0; i < 100; i++) {
        batch.writeBytes(RawClient.command("SET", "d" + i, "x" + i));
      }
      c.send(batch.toByteArray());
      assertEquals("+OK\r\n".repeat(100), c.read(500));
    }
    try (CellarServer server = start(transport, "always");
        RawClient c = new RawClient(server.port())) {
      assertEquals("$3\r\nx99\r\n", c.send("GET", "d99").read(9));
      assertEquals(":100\r\n", c.send("DBSIZE").readLine());
    }
  }
}
