package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record damaged on disk while the server runs: every read of it (RESP and HTTP) gets an error,
 * and the log says which file and offset, once for a burst of reads rather than once per read.
 */
class DamageLogTest {
  @TempDir Path dir;

  @Test
  void checksumFailuresWhileServingAreLoggedWithFileAndOffsetAtMostOncePerSecond()
      throws Exception {
    List<String> logged = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getMessage() != null && r.getMessage().contains("damage")) {
              logged.add(r.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger logger = Logger.getLogger("dev.cellar.server");
    logger.addHandler(capture);
    String value = "damaged-value-" + "x".repeat(200);
    int httpPort;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      httpPort = free.getLocalPort();
    }
    CellarServer server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", Integer.toString(httpPort))
                .set("dir", dir.resolve("data").toString()));
    try (RawClient c = new RawClient(server.port())) {
      assertEquals("+OK\r\n", c.send("SET", "k", value).readLine());
      Path segment = flipByteOf(dir.resolve("data"), value);
      long start = System.nanoTime();
      HttpResponse<String> http =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v1/kv/k"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(500, http.statusCode(), http.body());
      assertTrue(http.body().contains("corrupt"), http.body());
      assertEquals(1, logged.size(), () -> "the HTTP read logged " + logged);
      for (int i = 0; i < 50; i++) {
        String reply = c.send("GET", "k").readLine();
        assertTrue(reply.startsWith("-ERR a record failed its checksum"), reply);
      }
      long seconds = java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      // One line for the burst; on a machine slow enough for the reads to take over a second, one
      // more per second.
      assertTrue(
          !logged.isEmpty() && logged.size() <= 1 + seconds,
          () -> "51 reads in " + seconds + " s logged " + logged);
      String line = logged.getFirst();
      assertTrue(line.contains(segment.toString() + " offset "), line);
      assertTrue(line.contains("CRC32C mismatch"), line);
    } finally {
      logger.removeHandler(capture);
      server.close();
    }
  }

  /**
   * Flips one byte of {@code value} in the segment that holds it (the server's mapping sees it);
   * returns the file.
   */
  private static Path flipByteOf(Path data, String value) throws Exception {
    byte[] needle = value.getBytes(StandardCharsets.US_ASCII);
    try (Stream<Path> files = Files.list(data)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("seg-")).toList()) {
        byte[] bytes = Files.readAllBytes(file);
        int at = indexOf(bytes, needle);
        if (at >= 0) {
          try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (bytes[at + 20] ^ 1)}), at + 20);
          }
          return file;
        }
      }
    }
    throw new AssertionError("value not found in any segment of " + data);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
