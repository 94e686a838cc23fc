package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz target for the key-value routes: any key and value, put through their percent-encoding, read
 * back byte for byte; a scan with the key as prefix finds it (following cursors over empty pages);
 * a delete removes it. A class of its own because Jazzer fuzzes one target per JVM.
 */
class HttpKeyRoundTripFuzzTest {
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
      String scan =
          http.call(
                  "GET",
                  "/v1/scan?count=1&prefix=" + UriBytes.encode(key) + "&cursor=" + cursor,
                  new byte[0],
                  auth)
              .bodyText();
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
