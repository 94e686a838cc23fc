package dev.cellar.server.http;

import dev.cellar.CorruptStoreException;
import dev.cellar.DiskFullException;
import dev.cellar.LimitExceededException;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.server.command.CommandStats;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.metrics.ServerMetrics;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Answers one HTTP call: authentication, routing, method checks, and every failure turned into the
 * JSON error document ({@code docs/http.md} lists the endpoints and codes). Pure: a call in, a
 * reply out, no Netty, so it can be tested and fuzzed directly; {@link HttpConnection} adapts it.
 * Thread-safe; it runs on the HTTP worker threads.
 *
 * <p>{@code /healthz} needs no password, so that a load balancer can probe it; everything else does
 * when {@code requirepass} is set, unknown paths included (a 404 would tell a stranger which paths
 * exist). The dashboard page at {@code /} is open too: it holds no data, and the {@code /v1/stats}
 * it reads needs the password.
 */
final class HttpRouter {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final ServerContext server;
  private final ServerMetrics metrics;
  private final BearerAuth auth;
  private final KvRoute kv;
  private final ScanRoute scan;
  private final InfoRoute info;
  private final StatsRoute stats;
  private final DashboardRoute dashboard;
  private final Map<HttpOperation, CommandStats.Counters> counters =
      new EnumMap<>(HttpOperation.class);

  HttpRouter(ServerContext server, ServerMetrics metrics) {
    this.server = server;
    this.metrics = metrics;
    this.auth = new BearerAuth(server.config());
    this.kv = new KvRoute(server);
    this.scan = new ScanRoute(server);
    this.info = new InfoRoute(server);
    this.stats = new StatsRoute(server, metrics);
    this.dashboard = new DashboardRoute();
    for (HttpOperation op : HttpOperation.values()) {
      counters.put(op, server.stats().of(op.spec.name()));
    }
  }

  HttpReply route(HttpCall call) {
    try {
      return dispatch(call);
    } catch (HttpError e) {
      return HttpReply.of(e);
    } catch (RuntimeException e) {
      return failure(call, e);
    }
  }

  private HttpReply dispatch(HttpCall call) {
    String target = originForm(call.uri());
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    String method = call.method();
    if (path.equals("/healthz")) {
      return method.equals("GET") ? info.health() : methodNotAllowed("GET");
    }
    if (path.equals("/")) {
      return method.equals("GET") ? dashboard.page() : methodNotAllowed("GET");
    }
    HttpReply denied = auth.check(call);
    if (denied != null) {
      return denied;
    }
    QueryParameters query = QueryParameters.parse(q < 0 ? null : target.substring(q + 1));
    if (path.startsWith(KvRoute.PREFIX)) {
      return keyValue(call, path, query);
    }
    return switch (path) {
      case "/v1/scan" ->
          method.equals("GET")
              ? timed(HttpOperation.SCAN, () -> scan.scan(query))
              : methodNotAllowed("GET");
      case "/v1/info" -> method.equals("GET") ? info.info() : methodNotAllowed("GET");
      case "/v1/stats" -> method.equals("GET") ? stats.stats() : methodNotAllowed("GET");
      case "/metrics" ->
          method.equals("GET")
              ? new HttpReply(200, metrics.contentType(), metrics.scrape(), Map.of())
              : methodNotAllowed("GET");
      default ->
          HttpReply.error(
              404,
              "unknown_endpoint",
              "no endpoint at '"
                  + abbreviate(path)
                  + "': the endpoints are /v1/kv/{key}, /v1/scan, /v1/info, /v1/stats, /metrics, /healthz, and / (the dashboard)");
    };
  }

  private HttpReply keyValue(HttpCall call, String path, QueryParameters query) {
    HttpOperation op =
        switch (call.method()) {
          case "GET" -> HttpOperation.GET;
          case "PUT" -> HttpOperation.PUT;
          case "DELETE" -> HttpOperation.DELETE;
          default -> null;
        };
    if (op == null) {
      return methodNotAllowed("GET, PUT, DELETE");
    }
    return timed(
        op,
        () -> {
          byte[] key = PercentDecoder.path(path.substring(KvRoute.PREFIX.length()));
          if (key.length == 0) {
            throw HttpError.badRequest(
                "the key is empty: name it in the path, /v1/kv/{key}, percent-encoding any byte"
                    + " outside A-Z a-z 0-9 - . _ ~");
          }
          return switch (op) {
            case GET -> kv.get(key);
            case PUT -> kv.put(key, call.body(), query);
            case DELETE -> kv.delete(key);
            case SCAN -> throw new IllegalStateException("scan is not a key operation");
          };
        });
  }

  /**
   * Runs a data operation and counts it as its command: a call, its time, and a failure when it
   * answers an error other than 404 (a missing key is an answer, as a nil reply is in RESP).
   */
  private HttpReply timed(HttpOperation op, Supplier<HttpReply> operation) {
    long start = System.nanoTime();
    HttpReply reply;
    try {
      reply = operation.get();
    } catch (HttpError e) {
      reply = HttpReply.of(e);
    } catch (RuntimeException e) {
      reply = failure(null, e);
    }
    long nanos = System.nanoTime() - start;
    CommandStats.Counters c = counters.get(op);
    c.calls.increment();
    c.nanos.add(nanos);
    if (reply.status() >= 400 && reply.status() != 404) {
      c.failed.increment();
    }
    server.latency().record(op.spec, nanos);
    return reply;
  }

  /** The engine's failures as statuses a client can act on; anything else is a logged 500. */
  private static HttpReply failure(HttpCall call, RuntimeException e) {
    return switch (e) {
      case LimitExceededException limit -> HttpReply.error(413, "too_large", limit.getMessage());
      case DiskFullException full ->
          HttpReply.error(
              507,
              "disk_full",
              "disk full, write refused (reads go on; writes resume when space is freed): "
                  + full.getMessage());
      case StoreIOException io ->
          HttpReply.error(503, "unavailable", Dispatcher.serverWords(io.getMessage()));
      case StoreClosedException closed ->
          HttpReply.error(
              503, "unavailable", "the server is shutting down; retry elsewhere or later");
      case CorruptStoreException corrupt -> {
        dev.cellar.server.command.DamageLog.report(corrupt);
        yield HttpReply.error(500, "corrupt", corrupt.getMessage());
      }
      default -> {
        LOG.log(
            System.Logger.Level.ERROR,
            "HTTP "
                + (call == null ? "operation" : call.method() + " " + abbreviate(call.uri()))
                + " failed",
            e);
        yield HttpReply.error(500, "internal_error", "internal error: " + e);
      }
    };
  }

  private static HttpReply methodNotAllowed(String allowed) {
    return HttpReply.error(
        405, "method_not_allowed", "this endpoint answers " + allowed, Map.of("Allow", allowed));
  }

  /**
   * The path and query of a target sent in absolute form ({@code http://host/path}), as HTTP/1.1
   * allows.
   */
  private static String originForm(String uri) {
    int scheme = uri.indexOf("://");
    if (uri.startsWith("/") || scheme < 0) {
      return uri;
    }
    int path = uri.indexOf('/', scheme + 3);
    return path < 0 ? "/" : uri.substring(path);
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }
}
