package dev.cellar.server.http;

import dev.cellar.Cellar;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.metrics.ServerMetrics;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A router over a real store, without sockets: calls in, replies out. */
final class RouterFixture implements AutoCloseable {
  final Cellar store;
  final ServerConfig config;
  final ServerContext server;
  final HttpRouter router;

  RouterFixture(Cellar store, ServerConfig config) {
    this.store = store;
    this.config = config;
    this.server =
        new ServerContext(store, config, new dev.cellar.server.testsupport.NoServerControl());
    this.router = new HttpRouter(server, new ServerMetrics(server));
  }

  /**
   * What the HTTP fuzz targets run against: a store in {@code dir} with no fsync, bodies capped at
   * 4 KiB (so the 413 path is reachable) and the password {@code pw}.
   */
  static RouterFixture forFuzzing(java.nio.file.Path dir) {
    ServerConfig config =
        new ServerConfig().set("proto-max-bulk-len", "4096").set("requirepass", "pw");
    return new RouterFixture(
        Cellar.open(dir, dev.cellar.CellarOptions.defaults().fsync(dev.cellar.Fsync.NO)), config);
  }

  HttpReply call(String method, String uri) {
    return call(method, uri, new byte[0], Map.of());
  }

  HttpReply call(String method, String uri, byte[] body) {
    return call(method, uri, body, Map.of());
  }

  HttpReply call(String method, String uri, byte[] body, Map<String, String> headers) {
    return router.route(HttpCall.of(method, uri, headers, body));
  }

  HttpReply put(String uri, String body) {
    return call("PUT", uri, body.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    store.close();
  }
}
