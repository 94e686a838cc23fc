package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz targets for {@link HttpRouter}: everything a client controls (method, target, headers,
 * body) reaches it unchecked.
 *
 * <h2>Properties</h2>
 * <ul>
 *   <li>It answers every call: nothing escapes, and never a 500 (a 500 is a bug, not an answer).
 *   <li>Every status is one the interface documents; every error is the JSON error document.
 *   <li>Round trip: any key and value put through their percent-encoding read back byte for byte,
 *       and a scan of the key as prefix finds the key.
 * </ul>
 *
 * Run as regression tests by default; with {@code JAZZER_FUZZ=1} the selected target is fuzzed.
 */
class HttpRouterFuzzTest {
  private static final Set<Integer> DOCUMENTED = Set.of(200, 204, 400, 401, 404, 405, 413, 503, 507);
  private static final List<String> METHODS = List.of("GET", "PUT", "DELETE", "POST", "HEAD", "get");
  private static final List<String> PREFIXES = List.of("/v1/kv/", "/v1/scan?", "/v1/info", "/metrics", "/healthz", "/", "http://h/v1/kv/", "");

  @TempDir static Path dir;
  private static RouterFixture http;

  @BeforeAll
  static void open() {
    ServerConfig config = new ServerConfig().set("proto-max-bulk-len", "4096").set("requirepass", "pw");
    http = new RouterFixture(Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO)), config);
  }

  @AfterAll
  static void close() {
    http.close();
  }

  @FuzzTest(maxDuration = "15s")
  void anyCall(FuzzedDataProvider data) {
    String method = data.pickValue(METHODS);
    String target = data.pickValue(PREFIXES) + data.consumeString(data.consumeInt(0, 200));
    Map<String, String> headers = new HashMap<>();
    if (data.consumeBoolean()) {
      headers.put("Authorization", data.consumeBoolean() ? "Bearer pw" : data.consumeString(20));
    }
    byte[] body = data.consumeRemainingAsBytes();
    HttpReply reply = http.call(method, target, body, headers);
    assertTrue(DOCUMENTED.contains(reply.status()), reply.status() + " for " + method + " " + target + ": " + reply.bodyText());
    if (reply.status() >= 400 && !(reply.status() == 503 && target.startsWith("/healthz"))) {
      assertEquals("application/json", reply.contentType());
      assertTrue(reply.bodyText().matches("(?s)\\{\"error\":\"[a-z_]+\",\"message\":\".*\"}"), reply.bodyText());
    }
  }

  @FuzzTest(maxDuration = "15s")
  void keysAndValuesRoundTrip(FuzzedDataProvider data) {
    byte[] key = data.consumeBytes(data.consumeInt(1, 64));
    if (key.length == 0) {
      return;
    }
    byte[] value = data.consumeRemainingAsBytes();
    Map<String, String> auth = Map.of("Authorization", "Bearer pw");
    String path = "/v1/kv/" + UriBytes.encode(key);
    HttpReply put = http.call("PUT", path, value, auth);
    if (value.length > 4096) {
      assertEquals(413, put.status());
      return;
    }
    assertEquals(204, put.status(), put.bodyText());
    HttpReply got = http.call("GET", path, new byte[0], auth);
    assertEquals(200, got.status());
    assertArrayEquals(value, got.body());
    // A page may come back empty with a cursor (a sparse index): follow the cursor to the end.
    String element = JsonEncoder.encode(ScanRoute.keyJson(key));
    StringBuilder pages = new StringBuilder();
    String cursor = "";
    for (int page = 0; page < 10_000; page++) {
      String scan = http.call("GET", "/v1/scan?count=1&prefix=" + UriBytes.encode(key) + "&cursor=" + cursor, new byte[0], auth).bodyText();
      pages.append(scan);
      cursor = HttpRouterTest.cursorOf(scan);
      if (cursor.isEmpty()) {
        break;
      }
    }
    assertEquals("", cursor, "the scan ended");
    assertTrue(pages.toString().contains(element), pages + " should list " + element);
    assertEquals(204, http.call("DELETE", path, new byte[0], auth).status());
    assertEquals(404, http.call("GET", path, new byte[0], auth).status());
    assertNull(http.store.get(key), new String(key, UTF_8));
  }
}
