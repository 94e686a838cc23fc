package dev.cellar.server.net;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;

/**
 * A server in its own JVM for tests: {@code <dir> <http-port> [name value ...]}; prints its port.
 */
public final class ChildServerMain {
  public static void main(String[] args) throws Exception {
    ServerConfig config =
        new ServerConfig().set("port", "0").set("dir", args[0]).set("http-port", args[1]);
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
