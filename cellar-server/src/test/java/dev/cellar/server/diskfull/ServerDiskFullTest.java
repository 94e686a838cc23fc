package dev.cellar.server.diskfull;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.server.testsupport.ServerMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The server as users run it (its own JVM, {@code appendfsync always}) with its directory on a
 * real, small file system that fills up ({@link SmallFilesystem}). A Redis client writes until a
 * write is refused with the disk-full error; every acknowledged write stays readable; {@code INFO},
 * {@code /metrics} and {@code /healthz} say the disk is full; once space is freed the server
 * notices by itself and writes resume without a restart; after a SIGKILL, a restart serves every
 * write that was acknowledged. On ext4 and on tmpfs: on tmpfs that restart used to crash with
 * SIGBUS, as recovery read a segment's sparse tail (see {@code Segment.mapForAppend}).
 */
class ServerDiskFullTest {
  private static final int VALUE_BYTES = 32 << 10;

  @TempDir Path work;
  private SmallFilesystem fs;
  private Process server;
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopAndUnmount() throws Exception {
    try {
      if (server != null) {
        server.destroyForcibly();
        server.waitFor(30, TimeUnit.SECONDS);
      }
    } finally {
      if (fs != null) {
        fs.close();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SmallFilesystem.Type.class)
  void fullDiskRefusesWritesKeepsReadsAndWritesResumeWhenSpaceIsFreed(SmallFilesystem.Type type)
      throws Exception {
    fs = SmallFilesystem.mount(work, 64 << 20, type);
    Path data = fs.root().resolve("data");
    int httpPort = freePort();
    int port = start(data, httpPort);
    Path ballast = fs.ballast("ballast", fs.usableBytes() - (12 << 20));

    Map<String, String> acked = new LinkedHashMap<>();
    try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
      String refusal = writeUntilRefused(jedis, acked);
      assertTrue(
          refusal.startsWith(
              "ERR disk full, write refused (reads go on; writes resume when space is freed)"),
          refusal);
      assertRefused(() -> jedis.set("one-more", "x"));
      assertRefused(() -> jedis.incr("counter"));
      assertAllReadable(jedis, acked, "while the disk is full");

      String info = jedis.info("persistence");
      assertTrue(info.contains("aof_last_write_status:err\r\n"), info);
      assertTrue(info.contains("cellar_disk_full:1\r\n"), info);
      assertTrue(
          info.contains("cellar_write_failure:\r\n"), "a full disk is not a failed fsync: " + info);
      HttpResponse<String> health = get(httpPort, "/healthz");
      assertEquals(503, health.statusCode());
      assertTrue(health.body().startsWith("{\"status\":\"disk_full\""), health.body());
      assertTrue(get(httpPort, "/metrics").body().contains("\ncellar_disk_full 1.0\n"));
      HttpResponse<String> put =
          http.send(
              HttpRequest.newBuilder(uri(httpPort, "/v1/kv/over-http"))
                  .PUT(HttpRequest.BodyPublishers.ofString("x"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(507, put.statusCode(), put.body());
      assertEquals(200, get(httpPort, "/v1/kv/k0").statusCode(), "reads over HTTP go on");

      // Space returns: the server notices without being written to, and writes resume.
      Files.delete(ballast);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (get(httpPort, "/healthz").statusCode() != 200) {
        assertTrue(
            System.nanoTime() < deadline, "healthz still failing 60 s after space was freed");
        Thread.sleep(50);
      }
      info = jedis.info("persistence");
      assertTrue(
          info.contains("aof_last_write_status:ok\r\n") && info.contains("cellar_disk_full:0\r\n"),
          info);
      for (int i = 0; i < 20; i++) {
        set(jedis, "after" + i, value("after" + i), acked);
      }
    }

    // Acknowledged under appendfsync always means on disk: a SIGKILL loses none of it.
    server.destroyForcibly();
    assertTrue(server.waitFor(30, TimeUnit.SECONDS));
    port = start(data, httpPort);
    try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
      assertAllReadable(jedis, acked, "after SIGKILL and restart");
      assertEquals(acked.size(), jedis.dbSize());
    }
  }

  /** Writes new keys until the server refuses one; returns the refusal. */
  private static String writeUntilRefused(Jedis jedis, Map<String, String> acked) {
    for (int i = 0; i < 5_000; i++) {
      try {
        set(jedis, "k" + i, value("k" + i), acked);
      } catch (JedisDataException e) {
        return e.getMessage();
      }
    }
    return fail("the disk never filled");
  }

  private static void set(Jedis jedis, String key, String value, Map<String, String> acked) {
    assertEquals("OK", jedis.set(key, value));
    acked.put(key, value);
  }

  private static void assertRefused(Runnable write) {
    try {
      write.run();
      fail("a write succeeded on a full disk");
    } catch (JedisDataException e) {
      assertTrue(e.getMessage().startsWith("ERR disk full"), e.getMessage());
    }
  }

  private static void assertAllReadable(Jedis jedis, Map<String, String> acked, String when) {
    for (Map.Entry<String, String> e : acked.entrySet()) {
      assertEquals(e.getValue(), jedis.get(e.getKey()), e.getKey() + " " + when);
    }
  }

  private static String value(String key) {
    StringBuilder b = new StringBuilder(VALUE_BYTES);
    while (b.length() < VALUE_BYTES) {
      b.append(key).append(':');
    }
    return b.substring(0, VALUE_BYTES);
  }

  private HttpResponse<String> get(int httpPort, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(httpPort, path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(int httpPort, String path) {
    return URI.create("http://127.0.0.1:" + httpPort + path);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Starts the server in a child JVM on {@code data}; returns its RESP port. */
  private int start(Path data, int httpPort) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path log = work.resolve("server-" + System.nanoTime() + ".log");
    server =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                ServerMain.class.getName(),
                "dir",
                data.toString(),
                "appendfsync",
                "always",
                "io-threads",
                "2",
                "http-port",
                Integer.toString(httpPort))
            .redirectError(log.toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return out.readLine();
              } catch (IOException e) {
                return null;
              }
            },
            command -> Thread.ofPlatform().daemon().start(command));
    String first = line.get(60, TimeUnit.SECONDS);
    if (first == null || !first.startsWith("port ")) {
      fail("server did not start: " + first + "\n" + Files.readString(log));
    }
    return Integer.parseInt(first.substring("port ".length()).trim());
  }
}
