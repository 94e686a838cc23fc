package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP interface of a running server, through a real HTTP client and a raw RESP socket. */
class HttpEndpointTest {
  @TempDir Path dir;

  @Test
  void binarySafeKeyValue() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      byte[] key = {0, 1, (byte) 0xFF, '/', '?', '%', ' ', '+', 'k'};
      byte[] value = {(byte) 0xFF, 0, (byte) 0xFE, 0, 10, 13};
      String path = "/v1/kv/" + UriBytes.encode(key);

      assertEquals(204, live.put(path, value).statusCode());
      HttpResponse<byte[]> got = live.get(path);
      assertEquals(200, got.statusCode());
      assertEquals(
          "application/octet-stream", got.headers().firstValue("content-type").orElseThrow());
      assertArrayEquals(value, got.body());

      assertEquals(204, live.put("/v1/kv/empty", new byte[0]).statusCode());
      HttpResponse<byte[]> empty = live.get("/v1/kv/empty");
      assertEquals(200, empty.statusCode());
      assertEquals(0, empty.body().length);

      assertEquals(204, live.delete(path).statusCode());
      HttpResponse<byte[]> gone = live.get(path);
      assertEquals(404, gone.statusCode());
      assertEquals("application/json", gone.headers().firstValue("content-type").orElseThrow());
      assertTrue(new String(gone.body(), UTF_8).startsWith("{\"error\":\"not_found\""));
      assertEquals(404, live.delete(path).statusCode());
    }
  }

  @Test
  void ttlExpires() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      assertEquals(204, live.put("/v1/kv/brief?ttl=1", "v".getBytes(UTF_8)).statusCode());
      assertEquals(200, live.get("/v1/kv/brief").statusCode());
      long deadline = System.currentTimeMillis() + 5_000;
      while (live.get("/v1/kv/brief").statusCode() == 200) {
        assertTrue(System.currentTimeMillis() < deadline, "still there after its ttl");
        Thread.sleep(100);
      }
      assertEquals(400, live.put("/v1/kv/brief?ttl=0", "v".getBytes(UTF_8)).statusCode());
      assertEquals(400, live.put("/v1/kv/brief?ttl=soon", "v".getBytes(UTF_8)).statusCode());
    }
  }

  @Test
  void scanPagesCoverEveryKeyOnce() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      for (int i = 0; i < 120; i++) {
        live.server.store().put(("user:" + i).getBytes(UTF_8), new byte[] {1});
      }
      live.server.store().put("other".getBytes(UTF_8), new byte[] {1});
      List<byte[]> seen = new ArrayList<>();
      String cursor = "";
      int pages = 0;
      do {
        String body =
            new String(live.get("/v1/scan?prefix=user%3A&count=50&cursor=" + cursor).body(), UTF_8);
        seen.addAll(HttpRouterTest.keysOf(body));
        cursor = HttpRouterTest.cursorOf(body);
        pages++;
      } while (!cursor.isEmpty());
      assertTrue(pages >= 2, "paged: " + pages);
      assertEquals(120, seen.size());
      assertEquals(120, seen.stream().map(Arrays::toString).distinct().count());
    }
  }

  /**
   * A write or delete through HTTP is announced as the same command over RESP would be: to keyspace
   * notification subscribers ({@code set}, {@code expire}, {@code del}) and to clients caching the
   * key ({@code CLIENT TRACKING}). Before, HTTP writes were silent to both.
   */
  @Test
  void httpWritesReachKeyspaceEventsAndCachingClients() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of("notify-keyspace-events", "KEA"));
        java.net.Socket events = new java.net.Socket("127.0.0.1", live.server.port());
        java.net.Socket caching = new java.net.Socket("127.0.0.1", live.server.port())) {
      events.setSoTimeout(5_000);
      caching.setSoTimeout(5_000);
      send(events, "PSUBSCRIBE", "__keyspace@0__:*");
      awaitText(events, "psubscribe");
      send(caching, "HELLO", "3");
      send(caching, "CLIENT", "TRACKING", "on", "BCAST");
      awaitText(caching, "+OK");

      assertEquals(204, live.put("/v1/kv/viahttp?ttl=100", "v".getBytes(UTF_8)).statusCode());
      String seen = awaitText(events, "expire");
      assertTrue(seen.contains("__keyspace@0__:viahttp\r\n$3\r\nset"), seen);
      assertTrue(awaitText(caching, "viahttp").contains("invalidate"));

      assertEquals(204, live.delete("/v1/kv/viahttp").statusCode());
      assertTrue(awaitText(events, "$3\r\ndel").contains("__keyspace@0__:viahttp"));
      assertTrue(awaitText(caching, "viahttp").contains("invalidate"));
    }
  }

  private static void send(java.net.Socket socket, String... args) throws java.io.IOException {
    StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$').append(a.getBytes(UTF_8).length).append("\r\n").append(a).append("\r\n");
    }
    socket.getOutputStream().write(b.toString().getBytes(UTF_8));
    socket.getOutputStream().flush();
  }

  /** Reads from {@code socket} until what it read contains {@code text}; returns all of it. */
  private static String awaitText(java.net.Socket socket, String text) throws java.io.IOException {
    StringBuilder seen = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (!seen.toString().contains(text)) {
      int n = socket.getInputStream().read(buffer);
      if (n < 0) {
        throw new java.io.EOFException("closed before " + text + ": " + seen);
      }
      seen.append(new String(buffer, 0, n, UTF_8));
    }
    return seen.toString();
  }

  @Test
  void respAndHttpSeeEachOthersWrites() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      assertEquals("+OK\r\n", new String(live.resp("SET", "from-resp", "r\0v"), UTF_8));
      assertEquals("r\0v", new String(live.get("/v1/kv/from-resp").body(), UTF_8));

      assertEquals(204, live.put("/v1/kv/from-http", new byte[] {'h', (byte) 0xFF}).statusCode());
      assertArrayEquals(
          new byte[] {'$', '2', '\r', '\n', 'h', (byte) 0xFF, '\r', '\n'},
          live.resp("GET", "from-http"));
      live.resp("DEL", "from-resp");
      assertEquals(404, live.get("/v1/kv/from-resp").statusCode());
    }
  }

  @Test
  void metricsAreValidPrometheusText() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      live.resp("SET", "a", "1");
      live.resp("SET", "b", "2");
      live.resp("GET", "a");
      live.resp("INCR", "a");
      live.resp("INCR", "b", "extra");
      live.put("/v1/kv/c", "3".getBytes(UTF_8));
      live.server.store().sync();

      HttpResponse<byte[]> response = live.get("/metrics");
      assertEquals(200, response.statusCode());
      assertTrue(
          response
              .headers()
              .firstValue("content-type")
              .orElseThrow()
              .startsWith("text/plain; version=0.0.4"));
      Map<String, Double> samples = PrometheusText.parse(new String(response.body(), UTF_8));

      assertEquals(2.0, samples.get("cellar_commands_total{command=\"set\"}"));
      assertEquals(1.0, samples.get("cellar_commands_total{command=\"get\"}"));
      assertEquals(1.0, samples.get("cellar_commands_total{command=\"http.put\"}"));
      assertEquals(0.0, samples.get("cellar_command_failures_total{command=\"set\"}"));
      assertEquals(2.0, samples.get("cellar_command_duration_seconds_count{command=\"set\"}"));
      assertEquals(
          2.0, samples.get("cellar_command_duration_seconds_bucket{command=\"set\",le=\"+Inf\"}"));
      assertTrue(samples.get("cellar_command_duration_seconds_sum{command=\"set\"}") > 0);
      assertFalse(
          samples.containsKey("cellar_commands_total{command=\"hset\"}"), "only commands that ran");
      assertEquals(3.0, samples.get("cellar_keys"));
      assertEquals(1.0, samples.get("cellar_connected_clients"));
      assertTrue(samples.get("cellar_fsyncs_total") >= 1);
      assertEquals(
          samples.get("cellar_fsyncs_total"), samples.get("cellar_fsync_duration_seconds_count"));
      assertTrue(samples.get("cellar_fsync_duration_seconds_sum") > 0);
      for (String gauge :
          List.of(
              "cellar_memory_used_bytes",
              "cellar_memory_offheap_bytes",
              "cellar_memory_heap_bytes",
              "cellar_log_bytes")) {
        assertTrue(samples.get(gauge) > 0, gauge);
      }
      for (String name :
          List.of(
              "cellar_compactions_total",
              "cellar_compacted_bytes_total",
              "cellar_write_failure",
              "cellar_memory_rss_bytes")) {
        assertNotNull(samples.get(name), name);
      }
    }
  }

  @Test
  void healthAndInfo() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of())) {
      HttpResponse<byte[]> health = live.get("/healthz");
      assertEquals(200, health.statusCode());
      assertEquals("{\"status\":\"ok\"}", new String(health.body(), UTF_8));
      String info = new String(live.get("/v1/info").body(), UTF_8);
      assertTrue(info.contains("\"http_port\":" + live.server.httpPort()), info);
      assertTrue(info.contains("\"transport\":\"" + live.server.transport() + "\""), info);
    }
  }

  @Test
  void requirepassOverHttp() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of("requirepass", "open sesame"))) {
      HttpResponse<byte[]> none = live.get("/v1/info");
      assertEquals(401, none.statusCode());
      assertEquals(
          "Bearer realm=\"cellar\"", none.headers().firstValue("www-authenticate").orElseThrow());
      HttpResponse<byte[]> wrong =
          live.send(
              HttpRequest.newBuilder(live.uri("/v1/info")).header("Authorization", "Bearer open"));
      assertEquals(401, wrong.statusCode());
      HttpResponse<byte[]> right =
          live.send(
              HttpRequest.newBuilder(live.uri("/v1/info"))
                  .header("Authorization", "Bearer open sesame"));
      assertEquals(200, right.statusCode());
      assertFalse(new String(right.body(), UTF_8).contains("sesame"));
      assertEquals(200, live.get("/healthz").statusCode());
    }
  }

  @Test
  void protocolLevelErrorsAreJson() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of("proto-max-bulk-len", "1024"))) {
      HttpResponse<byte[]> large = live.put("/v1/kv/big", new byte[5000]);
      assertEquals(413, large.statusCode());
      assertTrue(
          new String(large.body(), UTF_8).startsWith("{\"error\":\"too_large\""),
          new String(large.body(), UTF_8));

      HttpResponse<byte[]> expecting =
          live.send(
              HttpRequest.newBuilder(live.uri("/v1/kv/big"))
                  .expectContinue(true)
                  .PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[5000])));
      assertEquals(413, expecting.statusCode());
      assertTrue(new String(expecting.body(), UTF_8).startsWith("{\"error\":\"too_large\""));
      assertEquals(404, live.get("/v1/kv/big").statusCode());

      HttpResponse<byte[]> longLine = live.get("/v1/kv/" + "k".repeat(300 * 1024));
      assertEquals(414, longLine.statusCode());

      HttpResponse<byte[]> unknown = live.get("/v1/nothing");
      assertEquals(404, unknown.statusCode());
      assertTrue(new String(unknown.body(), UTF_8).startsWith("{\"error\":\"unknown_endpoint\""));

      HttpResponse<byte[]> post =
          live.send(
              HttpRequest.newBuilder(live.uri("/v1/kv/a"))
                  .POST(HttpRequest.BodyPublishers.noBody()));
      assertEquals(405, post.statusCode());
      assertEquals("GET, PUT, DELETE", post.headers().firstValue("allow").orElseThrow());

      assertEquals(
          204,
          live.put("/v1/kv/fits", new byte[1024]).statusCode(),
          "the connection pool still works");
    }
  }
}
