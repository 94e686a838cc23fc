package dev.cellar.client;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.nio.file.Path;

/** A real server in this JVM, on a free port, HTTP off. */
final class TestServer implements AutoCloseable {
  private final CellarServer server;

  private TestServer(CellarServer server) {
    this.server = server;
  }

  /** Starts a server on {@code dir} with settings given as name, value pairs. */
  static TestServer start(Path dir, String... settings) {
    ServerConfig config =
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", dir.resolve("data").toString())
            .set("loglevel", "warning");
    for (int i = 0; i + 1 < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    return new TestServer(CellarServer.start(config));
  }

  int port() {
    return server.port();
  }

  String uri() {
    return "cellar://127.0.0.1:" + port();
  }

  @Override
  public void close() {
    server.close();
  }
}
