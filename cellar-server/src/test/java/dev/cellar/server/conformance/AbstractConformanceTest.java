package dev.cellar.server.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * One {@link TargetServer} per test class, an empty keyspace and a fresh raw connection {@link #c}
 * per test, and the reply spellings tests compare against. Expectations here are Redis's: every
 * subclass passes against {@code redis-server} ({@code -Dconformance.target=redis}) as well as
 * against Cellar, except where a test says why it cannot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractConformanceTest {
  static final String OK = "+OK\r\n";
  static final String NIL = "$-1\r\n";
  static final String EMPTY_BULK = "$0\r\n\r\n";
  static final String SYNTAX = "-ERR syntax error\r\n";
  static final String NOT_INTEGER = "-ERR value is not an integer or out of range\r\n";

  TargetServer server;
  RawClient c;
  private Path dir;

  @BeforeAll
  void startServer() throws IOException {
    dir = Files.createTempDirectory("cellar-conformance");
    server = TargetServer.start(dir);
  }

  @AfterAll
  void stopServer() throws IOException {
    if (server != null) {
      server.close();
    }
    deleteRecursively(dir);
  }

  @BeforeEach
  void connect() throws IOException {
    server.flushAll();
    c = server.connect();
  }

  @AfterEach
  void disconnect() throws IOException {
    if (c != null) {
      c.close();
    }
  }

  /**
   * Whether the server answers as Redis 7.2 or later (Cellar does; the local reference may not).
   */
  boolean redis72() throws IOException {
    String version = c.call("INFO", "server").replaceAll("(?s).*redis_version:([0-9.]+).*", "$1");
    String[] parts = version.split("\\.");
    int major = Integer.parseInt(parts[0]);
    return major > 7 || (major == 7 && Integer.parseInt(parts[1]) >= 2);
  }

  /** A Lettuce client of the server under test (10 s timeouts); the caller shuts it down. */
  io.lettuce.core.RedisClient lettuce() {
    return io.lettuce.core.RedisClient.create(
        io.lettuce.core.RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(server.port())
            .withTimeout(java.time.Duration.ofSeconds(10))
            .build());
  }

  /** Waits until INFO counts {@code n} clients in blocking commands. */
  void waitForBlocked(int n) throws Exception {
    String want = "blocked_clients:" + n + "\r\n";
    for (int i = 0; i < 500; i++) {
      if (c.call("INFO", "clients").contains(want)) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("never saw " + want.trim());
  }

  /** The SHA-1 of {@code text} in hex: how Redis names a script in its errors. */
  static String sha1Hex(String text) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-1")
                  .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static String bulk(String value) {
    return "$" + value.length() + "\r\n" + value + "\r\n";
  }

  static String integer(long value) {
    return ":" + value + "\r\n";
  }

  static String error(String text) {
    return "-" + text + "\r\n";
  }

  static String simple(String text) {
    return "+" + text + "\r\n";
  }

  static String arity(String command) {
    return error("ERR wrong number of arguments for '" + command + "' command");
  }

  /** An array of bulk strings, as RESP spells it. */
  static String array(String... bulks) {
    StringBuilder b = new StringBuilder("*").append(bulks.length).append("\r\n");
    for (String s : bulks) {
      b.append(s == null ? NIL : bulk(s));
    }
    return b.toString();
  }

  static void deleteRecursively(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
