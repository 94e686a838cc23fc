package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subscriber that does not read what is published to it is cut off at its output limit, as Redis
 * cuts off a pub/sub client over {@code client-output-buffer-limit}: the server holds no more than
 * the limit for it, the publisher goes on, and the subscriber's subscriptions end with its
 * connection.
 */
class PubSubLimitsTest {
  @TempDir Path dir;
  CellarServer server;

  @BeforeEach
  void start() {
    server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", "0")
                .set("dir", dir.toString())
                .set("io-threads", "2")
                .set("client-output-buffer-limit", "1mb"));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aSubscriberThatDoesNotReadIsCutOffAndThePublisherGoesOn() throws IOException {
    byte[] payload = new byte[64 << 10];
    Arrays.fill(payload, (byte) 'm');
    String message = new String(payload, java.nio.charset.StandardCharsets.ISO_8859_1);
    try (RawClient subscriber = new RawClient(server.port());
        RawClient publisher = new RawClient(server.port())) {
      subscriber.send("SUBSCRIBE", "firehose");
      assertTrue(subscriber.readLine().startsWith("*3"));
      // 64 MiB published in batches of 16 messages, none of it read by the subscriber.
      long delivered = 0;
      for (int batch = 0; batch < 64; batch++) {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
          wire.writeBytes(RawClient.command("PUBLISH", "firehose", message));
        }
        publisher.send(wire.toByteArray());
        for (int i = 0; i < 16; i++) {
          String reply = publisher.readLine();
          assertTrue(reply.equals(":1\r\n") || reply.equals(":0\r\n"), reply);
          delivered += reply.equals(":1\r\n") ? 1 : 0;
        }
      }
      assertTrue(delivered < 1024, "the subscriber was never cut off: " + delivered);
      assertTrue(subscriber.closedByPeer(), "the server closed the subscriber");
      assertEquals("*2\r\n", publisher.send("PUBSUB", "NUMSUB", "firehose").readLine());
      publisher.readLine();
      publisher.readLine();
      assertEquals(":0\r\n", publisher.readLine(), "its subscription ended with it");
      String info = publisher.send("INFO", "stats").readLine();
      String body = publisher.read(Integer.parseInt(info.substring(1).trim()) + 2);
      assertTrue(
          body.matches("(?s).*client_output_buffer_limit_disconnections:[1-9].*"),
          "the cut-off is counted: " + body);
      assertEquals("+PONG\r\n", publisher.send("PING").readLine());
    }
  }
}
