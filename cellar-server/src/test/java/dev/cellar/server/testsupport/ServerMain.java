package dev.cellar.server.testsupport;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;

/**
 * Starts a Cellar server in its own JVM, as {@code cellar server} does (SIGTERM runs {@link
 * CellarServer#close()} through a shutdown hook), for tests that must kill or stop a real process.
 *
 * <p>Arguments are setting names and values in pairs ({@code dir data appendfsync always}); the
 * pair {@code config-file <path>} reads a Redis-style config file at that point, as {@code cellar
 * server <file>} does. The ports default to 0, and once the server listens it prints {@code port
 * <n>} on a line of its own. It exits when the server stops ({@code SHUTDOWN}, SIGTERM).
 */
public final class ServerMain {
  private ServerMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException(
          "expected name value pairs, got " + String.join(" ", args));
    }
    ServerConfig config = new ServerConfig().set("port", "0").set("http-port", "0");
    for (int i = 0; i < args.length; i += 2) {
      if (args[i].equals("config-file")) {
        config.load(java.nio.file.Path.of(args[i + 1]));
      } else {
        config.set(args[i], args[i + 1]);
      }
    }
    CellarServer server = CellarServer.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "cellar-sigterm"));
    System.out.println("port " + server.port());
    System.out.flush();
    server.awaitStop();
  }
}
