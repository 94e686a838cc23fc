package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyLoaderTest {

  @Test
  void writesOneSetPerKeyInRedisBenchmarksKeyFormat() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    KeyLoader.writeCommands(out, 2, 5);
    assertEquals(
        "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000000\r\n$5\r\nxxxxx\r\n"
            + "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000001\r\n$5\r\nxxxxx\r\n",
        out.toString(StandardCharsets.US_ASCII));
  }

  @Test
  void lastKeyOfAMillionHasAllItsDigits() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    KeyLoader.writeCommands(out, 1_000_000, 60);
    String text = out.toString(StandardCharsets.US_ASCII);
    assertEquals(1_000_000L * (4 + 4 + 5 + 5 + 18 + 5 + 62), text.length());
    assertEquals(true, text.endsWith("key:000000999999\r\n$60\r\n" + "x".repeat(60) + "\r\n"));
  }

  /** What redis-cli 7.0.15 --pipe printed after 1,000 SETs. */
  @Test
  void readsRedisCliPipeSummary() {
    String output =
        """
        All data transferred. Waiting for the last reply...
        Last reply received from server.
        errors: 0, replies: 1000
        """;
    assertEquals(new KeyLoader.PipeSummary(0, 1000), KeyLoader.PipeSummary.parse(output));
    assertEquals(
        new KeyLoader.PipeSummary(-1, -1),
        KeyLoader.PipeSummary.parse("Could not connect to Redis"));
  }
}
