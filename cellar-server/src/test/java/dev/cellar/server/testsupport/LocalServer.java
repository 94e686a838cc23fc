package dev.cellar.server.testsupport;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.nio.file.Path;

/** Starts a Cellar server in the test's JVM on free ports, for tests of one configuration. */
public final class LocalServer {
  private LocalServer() {}

  /**
   * A server over {@code dir} with RESP on a free port, no HTTP, and {@code settings} (name and
   * value pairs, as in a config file) applied after those.
   */
  public static CellarServer start(Path dir, String... settings) {
    if (settings.length % 2 != 0) {
      throw new IllegalArgumentException("settings come in name value pairs");
    }
    ServerConfig config =
        new ServerConfig().set("port", "0").set("http-port", "0").set("dir", dir.toString());
    for (int i = 0; i < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    return CellarServer.start(config);
  }
}
