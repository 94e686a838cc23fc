package dev.cellar.server.http;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz targets for {@link HttpRouter}: everything a client controls (method, target, headers, body)
 * reaches it unchecked.
 *
 * <h2>Properties</h2>
 *
 * <ul>
 *   <li>It answers every call: nothing escapes, and never a 500 (a 500 is a bug, not an answer).
 *   <li>Every status is one the interface documents; every error is the JSON error document.
 * </ul>
 *
 * {@link HttpKeyRoundTripFuzzTest} checks that keys and values come back as they went in.
 *
 * <p>Run as regression tests by default; with {@code JAZZER_FUZZ=1} the selected target is fuzzed.
 */
class HttpRouterFuzzTest {
  private static final Set<Integer> DOCUMENTED =
      Set.of(200, 204, 400, 401, 404, 405, 413, 503, 507);
  private static final List<String> METHODS =
      List.of("GET", "PUT", "DELETE", "POST", "HEAD", "get");
  private static final List<String> PREFIXES =
      List.of(
          "/v1/kv/",
          "/v1/scan?",
          "/v1/info",
          "/v1/stats",
          "/metrics",
          "/healthz",
          "/",
          "http://h/v1/kv/",
          "");

  @TempDir static Path dir;
  private static RouterFixture http;

  @BeforeAll
  static void open() {
    http = RouterFixture.forFuzzing(dir);
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
    assertTrue(
        DOCUMENTED.contains(reply.status()),
        reply.status() + " for " + method + " " + target + ": " + reply.bodyText());
    if (reply.status() >= 400 && !(reply.status() == 503 && target.startsWith("/healthz"))) {
      assertEquals("application/json", reply.contentType());
      assertTrue(
          reply.bodyText().matches("(?s)\\{\"error\":\"[a-z_]+\",\"message\":\".*\"}"),
          reply.bodyText());
    }
  }
}
