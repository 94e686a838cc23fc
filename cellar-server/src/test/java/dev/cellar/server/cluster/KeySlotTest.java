package dev.cellar.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeySlotTest {
  @Test
  void crc16IsXmodem() {
    // The check value of CRC-16/XMODEM, and the example of the Redis Cluster specification.
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0x31C3, KeySlot.crc16(check, 0, check.length));
    assertEquals(0x31C3 & 16383, KeySlot.of(check));
  }

  @Test
  void hashTagsFollowTheSpecification() {
    assertEquals(slot("user1000"), slot("{user1000}.following"));
    assertEquals(slot("user1000"), slot("{user1000}.followers"));
    assertEquals(slot("bar"), slot("foo{bar}{zap}")); // the first tag only
    assertEquals(slot("{bar"), slot("foo{{bar}}zap")); // from the first '{' to the first '}'
    assertEquals(crcSlot("foo{}{bar}"), slot("foo{}{bar}")); // an empty tag: the whole key
    assertEquals(crcSlot("foo{bar"), slot("foo{bar")); // no closing brace: the whole key
    assertEquals(crcSlot("foo}bar{"), slot("foo}bar{"));
    assertEquals(crcSlot(""), slot(""));
  }

  /** Every slot against a real redis-server's CLUSTER KEYSLOT, for random keys with braces. */
  @Test
  void agreesWithRedis(@TempDir Path dir) throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/redis-server")), "redis-server is installed");
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    Process redis =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                dir.resolve("nodes.conf").toString(),
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    try (Socket socket = connect(port)) {
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      SplittableRandom random = new SplittableRandom(20261128);
      byte[] alphabet = "ab{}{}x".getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < 3000; i++) {
        byte[] key = new byte[random.nextInt(0, 12)];
        for (int j = 0; j < key.length; j++) {
          key[j] =
              random.nextInt(3) == 0
                  ? alphabet[random.nextInt(alphabet.length)]
                  : (byte) random.nextInt(256);
        }
        out.write(command(bytes("CLUSTER"), bytes("KEYSLOT"), key));
        out.flush();
        assertEquals(
            redisInteger(in),
            KeySlot.of(key),
            () -> "key " + java.util.HexFormat.of().formatHex(key));
      }
    } finally {
      redis.destroy();
      redis.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static Socket connect(int port) throws InterruptedException, IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        return new Socket("127.0.0.1", port);
      } catch (IOException notYet) {
        if (attempt > 100) {
          throw notYet;
        }
        Thread.sleep(50);
      }
    }
  }

  private static int redisInteger(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) {
        throw new IOException("redis-server closed the connection");
      }
      line.append((char) c);
    }
    String reply = line.toString().strip();
    if (!reply.startsWith(":")) {
      throw new IOException("unexpected reply " + reply);
    }
    return Integer.parseInt(reply.substring(1));
  }

  private static byte[] command(byte[]... args) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] arg : args) {
      out.writeBytes(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(arg);
      out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toByteArray();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int slot(String key) {
    return KeySlot.of(bytes(key));
  }

  private static int crcSlot(String key) {
    byte[] b = bytes(key);
    return KeySlot.crc16(b, 0, b.length) & 16383;
  }
}
