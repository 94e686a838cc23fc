package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarVersion;
import dev.cellar.DiskFullException;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.server.config.ServerConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpRouterTest {
  @TempDir Path dir;
  private RouterFixture http;

  @BeforeEach
  void open() {
    http =
        new RouterFixture(
            Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO)),
            new ServerConfig().set("dir", dir.toString()));
  }

  @AfterEach
  void close() {
    http.close();
  }

  // ------------------------------------------------------------------ key-value

  @Test
  void binaryKeysAndValuesRoundTrip() {
    byte[] key = new byte[256];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) i;
    }
    byte[] value = {0, (byte) 0xFF, 0, 'a', (byte) 0x80, 0};
    String uri = "/v1/kv/" + UriBytes.encode(key);

    assertEquals(204, http.call("PUT", uri, value).status());
    assertArrayEquals(value, http.store.get(key), "stored under the decoded bytes");
    HttpReply got = http.call("GET", uri);
    assertEquals(200, got.status());
    assertEquals("application/octet-stream", got.contentType());
    assertArrayEquals(value, got.body());

    assertEquals(204, http.call("DELETE", uri).status());
    assertNull(http.store.get(key));
    assertError(http.call("GET", uri), 404, "not_found");
    assertError(http.call("DELETE", uri), 404, "not_found");
  }

  @Test
  void anEmptyValueIsAValue() {
    assertEquals(204, http.call("PUT", "/v1/kv/empty", new byte[0]).status());
    HttpReply got = http.call("GET", "/v1/kv/empty");
    assertEquals(200, got.status());
    assertEquals(0, got.body().length);
  }

  @Test
  void pathKeepsPlusAndSlashesAndRawBytes() {
    http.put("/v1/kv/a+b/c", "1");
    assertArrayEquals("1".getBytes(UTF_8), http.store.get("a+b/c".getBytes(UTF_8)));
    // Netty hands over the request line one character per byte: raw UTF-8 in the path stays UTF-8.
    String rawUtf8 = new String("é".getBytes(UTF_8), java.nio.charset.StandardCharsets.ISO_8859_1);
    http.put("/v1/kv/" + rawUtf8, "2");
    assertArrayEquals("2".getBytes(UTF_8), http.store.get("é".getBytes(UTF_8)));
  }

  @Test
  void ttlSetsAnExpiryAndAPlainPutClearsIt() {
    long before = System.currentTimeMillis();
    assertEquals(204, http.put("/v1/kv/t?ttl=100", "v").status());
    long expiry = http.store.expiryOf("t".getBytes(UTF_8));
    assertTrue(
        expiry >= before + 100_000 && expiry <= System.currentTimeMillis() + 100_000,
        "expiry " + expiry);
    http.put("/v1/kv/t", "v");
    assertEquals(Cellar.NO_EXPIRY, http.store.expiryOf("t".getBytes(UTF_8)));
  }

  @Test
  void ttlMustBeAPositiveWholeNumberOfSeconds() {
    for (String ttl :
        List.of(
            "0",
            "-5",
            "abc",
            "1.5",
            "",
            "+3",
            "%D9%A3",
            "99999999999999999999",
            "9223372036854775807")) {
      HttpReply reply = http.put("/v1/kv/k?ttl=" + ttl, "v");
      assertError(reply, 400, "bad_request");
      assertTrue(reply.bodyText().contains("ttl"), reply.bodyText());
    }
    assertNull(http.store.get("k".getBytes(UTF_8)), "no bad request wrote");
  }

  @Test
  void malformedKeys() {
    assertError(http.call("GET", "/v1/kv/"), 400, "bad_request");
    assertError(http.put("/v1/kv/", "v"), 400, "bad_request");
    assertError(http.call("GET", "/v1/kv/%G1"), 400, "bad_request");
    assertError(http.call("GET", "/v1/kv/abc%4"), 400, "bad_request");
    assertError(http.call("GET", "/v1/kv/\u0100"), 400, "bad_request");
    String overLong = "/v1/kv/" + "k".repeat(65 * 1024);
    assertError(http.put(overLong, "v"), 413, "too_large");
    assertError(http.call("GET", overLong), 413, "too_large");
    assertError(http.call("DELETE", overLong), 413, "too_large");
  }

  @Test
  void absoluteFormTargets() {
    http.put("http://localhost:6380/v1/kv/abs", "v");
    assertArrayEquals("v".getBytes(UTF_8), http.call("GET", "/v1/kv/abs").body());
  }

  // ------------------------------------------------------------------ routing errors

  @Test
  void unknownPathsAndWrongMethods() {
    assertError(http.call("GET", "/v2/kv/a"), 404, "unknown_endpoint");
    assertError(http.call("GET", "/v1/kv"), 404, "unknown_endpoint");
    assertError(http.call("GET", "/v1"), 404, "unknown_endpoint");

    HttpReply post = http.call("POST", "/v1/kv/a");
    assertError(post, 405, "method_not_allowed");
    assertEquals("GET, PUT, DELETE", post.headers().get("Allow"));
    for (String path : List.of("/metrics", "/healthz", "/v1/info", "/v1/stats", "/v1/scan", "/")) {
      HttpReply reply = http.call("PUT", path);
      assertError(reply, 405, "method_not_allowed");
      assertEquals("GET", reply.headers().get("Allow"), path);
    }
  }

  // ------------------------------------------------------------------ limits and failures

  @Test
  void valuesOverProtoMaxBulkLenAreRefused() {
    http.config.set("proto-max-bulk-len", "1024");
    assertEquals(204, http.call("PUT", "/v1/kv/ok", new byte[1024]).status());
    assertError(http.call("PUT", "/v1/kv/big", new byte[1025]), 413, "too_large");
    assertNull(http.store.get("big".getBytes(UTF_8)));
  }

  @Test
  void putsOverMaxmemoryAreRefused() {
    http.put("/v1/kv/a", "x".repeat(10_000));
    http.config.set("maxmemory", "1");
    http.server.memory().refresh();
    HttpReply reply = http.put("/v1/kv/b", "v");
    assertError(reply, 507, "out_of_memory");
    assertNull(http.store.get("b".getBytes(UTF_8)));
    assertEquals(204, http.call("DELETE", "/v1/kv/a").status(), "deletes still run");
    assertError(http.call("GET", "/v1/kv/missing"), 404, "not_found");
  }

  @Test
  void engineFailuresMapToActionableStatuses() {
    http.close();
    Map<RuntimeException, String> expected =
        Map.of(
            new DiskFullException("no space"), "507 disk_full",
            new StoreIOException("fsync failed"), "503 unavailable",
            new LimitExceededException("value length 9 > max 8"), "413 too_large",
            new StoreClosedException("closed"), "503 unavailable",
            new IllegalStateException("bug"), "500 internal_error");
    Cellar real = Cellar.open(dir);
    try {
      for (Map.Entry<RuntimeException, String> e : expected.entrySet()) {
        RouterFixture failing =
            new RouterFixture(failingWrites(real, e.getKey()), new ServerConfig());
        HttpReply reply = failing.put("/v1/kv/k", "v");
        assertEquals(e.getValue(), reply.status() + " " + code(reply), e.getKey().toString());
        assertEquals(
            e.getValue(), statusAndCode(failing.call("DELETE", "/v1/kv/k")), e.getKey().toString());
      }
    } finally {
      real.close();
    }
    http = new RouterFixture(Cellar.open(dir), new ServerConfig());
  }

  /** A store whose puts and deletes throw {@code failure}; everything else goes to {@code real}. */
  private static Cellar failingWrites(Cellar real, RuntimeException failure) {
    return (Cellar)
        Proxy.newProxyInstance(
            Cellar.class.getClassLoader(),
            new Class<?>[] {Cellar.class},
            (proxy, method, args) -> {
              if (method.getName().equals("put") || method.getName().equals("delete")) {
                throw failure;
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void alwaysFsyncsBeforeAnswering() {
    http.close();
    // As the server opens it: the engine owns the policy, and its writes leave the wait to us.
    http =
        new RouterFixture(
            Cellar.open(
                dir, CellarOptions.defaults().fsync(Fsync.ALWAYS).writesAwaitDurability(false)),
            new ServerConfig().set("dir", dir.toString()));
    long before = http.store.stats().fsyncs();
    http.put("/v1/kv/durable", "v");
    assertTrue(http.store.stats().fsyncs() > before, "the put was fsynced before its 204");
  }

  // ------------------------------------------------------------------ auth

  @Test
  void requirepassNeedsTheBearerToken() {
    http.config.set("requirepass", "s3cret");
    HttpReply none = http.call("GET", "/v1/kv/a");
    assertError(none, 401, "unauthorized");
    assertEquals("Bearer realm=\"cellar\"", none.headers().get("WWW-Authenticate"));
    HttpReply wrong =
        http.call("GET", "/v1/kv/a", new byte[0], Map.of("Authorization", "Bearer s3cre"));
    assertError(wrong, 401, "unauthorized");
    assertTrue(wrong.headers().get("WWW-Authenticate").contains("invalid_token"));
    assertError(
        http.call("GET", "/v1/kv/a", new byte[0], Map.of("Authorization", "Basic czNjcmV0")),
        401,
        "unauthorized");
    assertError(http.call("GET", "/nowhere"), 401, "unauthorized");
    assertError(http.call("GET", "/v1/scan?count=%zz"), 401, "unauthorized");

    assertError(
        http.call("GET", "/v1/kv/a", new byte[0], Map.of("authorization", "bearer s3cret")),
        404,
        "not_found");
    for (String path : List.of("/metrics", "/v1/info", "/v1/stats", "/v1/scan")) {
      assertEquals(401, http.call("GET", path).status(), path);
      assertEquals(
          200,
          http.call("GET", path, new byte[0], Map.of("Authorization", "Bearer s3cret")).status(),
          path);
    }
    assertEquals(200, http.call("GET", "/healthz").status(), "health probes need no password");
    HttpReply page = http.call("GET", "/");
    assertEquals(
        200, page.status(), "the dashboard page holds no data; its /v1/stats needs the password");
    assertEquals("text/html; charset=utf-8", page.contentType());
  }

  @Test
  void thePasswordAppearsNowhere() {
    http.config.set("requirepass", "pw-4f1c9e");
    Map<String, String> auth = Map.of("Authorization", "Bearer pw-4f1c9e");
    for (String path : List.of("/metrics", "/v1/info", "/v1/stats", "/healthz", "/")) {
      String body = http.call("GET", path, new byte[0], auth).bodyText();
      assertFalse(body.contains("pw-4f1c9e"), path);
    }
  }

  // ------------------------------------------------------------------ scan

  @Test
  void scanPagesReturnEveryKeyOnceInOrder() {
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < 250; i++) {
      byte[] key = ("p:" + i).getBytes(UTF_8);
      if (i % 10 == 0) {
        key = Arrays.copyOf(key, key.length + 2);
        key[key.length - 1] = (byte) 0xFF; // not UTF-8
      }
      http.store.put(key, new byte[] {1});
      expected.add(Base64.getEncoder().encodeToString(key));
    }
    for (int i = 0; i < 50; i++) {
      http.store.put(("q:" + i).getBytes(UTF_8), new byte[] {1});
    }
    List<byte[]> seen = new ArrayList<>();
    String cursor = "";
    int pages = 0;
    do {
      HttpReply page = http.call("GET", "/v1/scan?prefix=p%3A&count=7&cursor=" + cursor);
      assertEquals(200, page.status(), page.bodyText());
      assertEquals("application/json", page.contentType());
      seen.addAll(keysOf(page.bodyText()));
      cursor = cursorOf(page.bodyText());
      pages++;
    } while (!cursor.isEmpty());
    assertTrue(pages >= 250 / 7 / 2, "pages of about 7 keys: " + pages);
    Set<String> got = new HashSet<>();
    for (byte[] key : seen) {
      assertTrue(got.add(Base64.getEncoder().encodeToString(key)), "no key twice");
    }
    assertEquals(expected, got);
  }

  @Test
  void scanRendersKeysAsTextOrBase64() {
    http.store.put("plain \"quoted\"\n".getBytes(UTF_8), new byte[0]);
    http.store.put(new byte[] {(byte) 0xC3}, new byte[0]);
    String body = http.call("GET", "/v1/scan").bodyText();
    // Keys come in hash order: either order is right.
    assertTrue(
        body.equals(
                "{\"cursor\":\"\",\"keys\":[\"plain \\\"quoted\\\"\\n\",{\"base64\":\"ww==\"}]}")
            || body.equals(
                "{\"cursor\":\"\",\"keys\":[{\"base64\":\"ww==\"},\"plain \\\"quoted\\\"\\n\"]}"),
        body);
  }

  @Test
  void scanParameters() {
    for (int i = 0; i < 150; i++) {
      http.store.put(("k" + i).getBytes(UTF_8), new byte[0]);
    }
    String firstPage = http.call("GET", "/v1/scan").bodyText();
    int defaultPage = keysOf(firstPage).size();
    assertTrue(
        defaultPage >= 100 && defaultPage < 150 && !cursorOf(firstPage).isEmpty(),
        "default count: " + firstPage);
    assertEquals(150, keysOf(http.call("GET", "/v1/scan?count=1000").bodyText()).size());
    assertEquals("", cursorOf(http.call("GET", "/v1/scan?count=1000").bodyText()));
    assertEquals(0, keysOf(http.call("GET", "/v1/scan?prefix=zz").bodyText()).size());
    for (String bad : List.of("count=0", "count=1001", "count=x", "cursor=!!", "cursor=a")) {
      assertError(http.call("GET", "/v1/scan?" + bad), 400, "bad_request");
    }
  }

  // ------------------------------------------------------------------ info, health, metrics

  @Test
  void healthAndInfo() {
    HttpReply health = http.call("GET", "/healthz");
    assertEquals(200, health.status());
    assertEquals("{\"status\":\"ok\"}", health.bodyText());

    http.put("/v1/kv/a", "1");
    http.put("/v1/kv/b", "2");
    String info = http.call("GET", "/v1/info").bodyText();
    assertTrue(info.startsWith("{\"server\":{"), info);
    for (String field :
        List.of(
            "\"keyspace\":{\"keys\":2}",
            "\"appendfsync\":\"everysec\"",
            "\"write_failure\":null",
            "\"used_memory\":",
            "\"used_memory_rss\":",
            "\"used_memory_heap\":",
            "\"used_memory_offheap_index\":",
            "\"log_bytes\":",
            "\"connected_clients\":0",
            "\"cellar_version\":\"" + CellarVersion.current() + "\"",
            "\"total_commands_processed\":2",
            "\"uptime_in_seconds\":",
            "\"transport\":\"none\"")) {
      assertTrue(info.contains(field), field + " in " + info);
    }
  }

  @Test
  void statsAreTotalsWithTheLatencyHistogram() {
    http.put("/v1/kv/a", "1");
    http.put("/v1/kv/b", "2");
    http.call("GET", "/v1/kv/a");
    HttpReply reply = http.call("GET", "/v1/stats");
    assertEquals(200, reply.status());
    String stats = reply.bodyText();
    assertTrue(stats.startsWith("{\"sampled_at_ms\":"), stats);
    for (String field :
        List.of(
            "\"total_commands_processed\":3",
            "\"failed_commands\":0",
            "\"keyspace_hits\":1",
            "\"connected_clients\":0",
            "\"keys\":2",
            "\"puts\":2",
            "\"fsyncs\":",
            "\"compacted_bytes\":0",
            "\"used_memory_heap\":")) {
      assertTrue(stats.contains(field), field + " in " + stats);
    }
    // Three operations timed: the histogram's buckets, one more than its finite bounds, hold them
    // all.
    Matcher latency =
        Pattern.compile(
                "\"latency\":\\{\"count\":(\\d+),\"sum_seconds\":[0-9.eE-]+,\"le_seconds\":\\[([^]]*)],\"counts\":\\[([^]]*)]}")
            .matcher(stats);
    assertTrue(latency.find(), stats);
    assertEquals(3, Long.parseLong(latency.group(1)));
    String[] bounds = latency.group(2).split(",");
    String[] counts = latency.group(3).split(",");
    assertEquals("1.0E-5", bounds[0]);
    assertEquals(bounds.length + 1, counts.length);
    assertEquals(3, Arrays.stream(counts).mapToLong(Long::parseLong).sum());
    Matcher mapped = Pattern.compile("\"mapped_log_bytes\":(\\d+)").matcher(stats);
    assertTrue(mapped.find(), stats);
    assertEquals(http.store.stats().mappedBytes(), Long.parseLong(mapped.group(1)));
    assertTrue(Long.parseLong(mapped.group(1)) > 0, "the active segment is mapped: " + stats);
  }

  @Test
  void metricsCountHttpOperations() {
    http.put("/v1/kv/a", "1");
    http.put("/v1/kv/b", "2");
    http.call("GET", "/v1/kv/a");
    http.call("GET", "/v1/kv/missing");
    http.put("/v1/kv/c?ttl=x", "3");
    HttpReply metrics = http.call("GET", "/metrics");
    assertEquals(200, metrics.status());
    assertTrue(
        metrics.contentType().startsWith("text/plain; version=0.0.4"), metrics.contentType());
    String text = metrics.bodyText();
    for (String line :
        List.of(
            "cellar_commands_total{command=\"http.put\"} 3.0",
            "cellar_commands_total{command=\"http.get\"} 2.0",
            "cellar_command_failures_total{command=\"http.put\"} 1.0",
            "cellar_command_failures_total{command=\"http.get\"} 0.0",
            "cellar_command_duration_seconds_count{command=\"http.put\"} 3",
            "cellar_keys 2.0",
            "cellar_keyspace_hits_total 1.0",
            "cellar_keyspace_misses_total 1.0",
            "cellar_write_failure 0.0")) {
      assertTrue(text.contains(line), line + " in\n" + text);
    }
  }

  // ------------------------------------------------------------------ helpers

  private static void assertError(HttpReply reply, int status, String code) {
    assertEquals(status, reply.status(), reply.bodyText());
    assertEquals("application/json", reply.contentType());
    assertEquals(code, code(reply), reply.bodyText());
    assertTrue(
        reply.bodyText().matches("\\{\"error\":\"[a-z_]+\",\"message\":\".+\"}"), reply.bodyText());
  }

  private static String statusAndCode(HttpReply reply) {
    return reply.status() + " " + code(reply);
  }

  private static String code(HttpReply reply) {
    Matcher m = Pattern.compile("\"error\":\"([a-z_]+)\"").matcher(reply.bodyText());
    return m.find() ? m.group(1) : null;
  }

  static String cursorOf(String json) {
    Matcher m = Pattern.compile("^\\{\"cursor\":\"([0-9]*)\"").matcher(json);
    assertTrue(m.find(), json);
    return m.group(1);
  }

  /** The keys of a scan page whose text keys need no JSON escapes. */
  static List<byte[]> keysOf(String json) {
    List<byte[]> keys = new ArrayList<>();
    Matcher m =
        Pattern.compile("\\{\"base64\":\"([^\"]*)\"}|\"((?:[^\"\\\\])*)\"")
            .matcher(json.substring(json.indexOf("\"keys\":[") + 8));
    while (m.find()) {
      keys.add(
          m.group(1) != null ? Base64.getDecoder().decode(m.group(1)) : m.group(2).getBytes(UTF_8));
    }
    return keys;
  }
}
