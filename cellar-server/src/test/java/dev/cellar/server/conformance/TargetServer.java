package dev.cellar.server.conformance;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server a conformance or client test talks to: Cellar in this JVM by default, or a real {@code
 * redis-server} when the test JVM runs with {@code -Dconformance.target=redis}. The same tests then
 * check the same expectations against Redis itself, which is how we know they are Redis's behaviour
 * and not ours:
 *
 * <pre>
 * ./mvnw -B -pl cellar-server -am verify -Dtest='*Conformance*,*Client*' -Dsurefire.failIfNoSpecifiedTests=false -Dconformance.target=redis
 * </pre>
 *
 * <p>Redis runs with no persistence ({@code --save '' --appendonly no}) on a free loopback port in
 * its own temporary directory; if the target is Redis and {@code redis-server} cannot start, the
 * test fails rather than quietly testing nothing.
 */
final class TargetServer implements AutoCloseable {
  /** The only system property the tests read: which server they check. */
  static final String TARGET_PROPERTY = "conformance.target";

  private final CellarServer cellar;
  private final Process redis;
  private final int port;

  private TargetServer(CellarServer cellar, Process redis, int port) {
    this.cellar = cellar;
    this.redis = redis;
    this.port = port;
  }

  /** Starts the configured target over {@code dir} (an empty temporary directory). */
  static TargetServer start(Path dir) {
    String target = System.getProperty(TARGET_PROPERTY, "cellar");
    return switch (target) {
      case "cellar" -> startCellar(dir);
      case "redis" -> startRedis(dir);
      default ->
          throw new IllegalArgumentException(
              TARGET_PROPERTY + " must be cellar or redis, not '" + target + "'");
    };
  }

  /** Whether the tests run against a real redis-server (the reference) rather than Cellar. */
  static boolean targetIsRedis() {
    return "redis".equals(System.getProperty(TARGET_PROPERTY));
  }

  static TargetServer startCellar(Path dir) {
    ServerConfig config =
        new ServerConfig().set("port", "0").set("http-port", "0").set("dir", dir.toString());
    CellarServer server = CellarServer.start(config);
    return new TargetServer(server, null, server.port());
  }

  static TargetServer startRedis(Path dir) {
    IOException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port = freePort();
      try {
        Process p =
            new ProcessBuilder(
                    List.of(
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        dir.toString(),
                        "--daemonize",
                        "no",
                        "--loglevel",
                        "warning"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        if (awaitPing(port, p)) {
          return new TargetServer(null, p, port);
        }
        p.destroyForcibly();
        last =
            new IOException(
                "redis-server on port "
                    + port
                    + " did not answer PING; see "
                    + dir.resolve("redis.log"));
      } catch (IOException e) {
        last = e; // not installed, or the port was taken between freePort() and bind
      }
    }
    throw new IllegalStateException(
        "cannot start redis-server (install it, or run without -D" + TARGET_PROPERTY + "=redis)",
        last);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean awaitPing(int port, Process p) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline && p.isAlive()) {
      try (RawClient c = RawClient.connect(port)) {
        if ("+PONG\r\n".equals(c.call("PING"))) {
          return true;
        }
      } catch (IOException e) {
        sleep(20);
      }
    }
    return false;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  int port() {
    return port;
  }

  boolean isRedis() {
    return redis != null;
  }

  /** A new raw connection; the caller closes it. */
  RawClient connect() throws IOException {
    return RawClient.connect(port);
  }

  /** Empties the keyspace between tests (both servers keep one across a test class). */
  void flushAll() throws IOException {
    try (RawClient c = connect()) {
      String reply = c.call("FLUSHALL");
      if (!"+OK\r\n".equals(reply)) {
        throw new IllegalStateException("FLUSHALL answered " + reply);
      }
    }
  }

  @Override
  public void close() {
    if (cellar != null) {
      cellar.close();
    }
    if (redis != null) {
      redis.destroy(); // SIGTERM: redis-server exits at once with persistence off
      try {
        if (!redis.waitFor(10, TimeUnit.SECONDS)) {
          redis.destroyForcibly();
        }
      } catch (InterruptedException e) {
        redis.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
