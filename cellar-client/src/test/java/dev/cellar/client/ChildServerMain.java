package dev.cellar.client;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;

/**
 * A server in a JVM of its own, for tests that kill it: {@code <dir> <port> [name value ...]};
 * prints {@code PORT n} once it listens.
 */
public final class ChildServerMain {
  private ChildServerMain() {}

  public static void main(String[] args) throws Exception {
    ServerConfig config =
        new ServerConfig()
            .set("dir", args[0])
            .set("port", args[1])
            .set("http-port", "0")
            .set("loglevel", "warning");
    for (int i = 2; i + 1 < args.length; i += 2) {
      config.set(args[i], args[i + 1]);
    }
    CellarServer server = CellarServer.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    System.out.println("PORT " + server.port());
    System.out.flush();
    server.awaitStop();
  }
}
