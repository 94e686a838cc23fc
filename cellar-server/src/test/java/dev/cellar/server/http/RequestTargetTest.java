package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Percent-decoding, query parameters and the JSON encoder: the text the router reads and writes.
 */
class RequestTargetTest {
  @Test
  void percentDecodingIsByteExact() {
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    assertArrayEquals(all, PercentDecoder.path(UriBytes.encode(all)));
    assertArrayEquals(new byte[] {'a', '+', 'b'}, PercentDecoder.path("a+b"));
    assertArrayEquals(new byte[] {'a', ' ', 'b'}, PercentDecoder.query("a+b"));
    assertArrayEquals(new byte[] {'a', '+', 'b'}, PercentDecoder.query("a%2Bb"));
    assertArrayEquals(new byte[] {(byte) 0xAB, (byte) 0xCD}, PercentDecoder.path("%ab%CD"));
    for (String bad : List.of("%", "%1", "%zz", "a%g0", "%\u0661\u0661", "\u0100")) {
      HttpError e = assertThrows(HttpError.class, () -> PercentDecoder.path(bad), bad);
      assertEquals(400, e.status());
    }
  }

  @Test
  void queryParameters() {
    QueryParameters q = QueryParameters.parse("prefix=a%00b&count=5&count=6&flag&=x&&empty=");
    assertArrayEquals(new byte[] {'a', 0, 'b'}, q.bytes("prefix"));
    assertEquals(5, q.integer("count", 1, 10, 0), "the first of a repeated name");
    assertEquals("", q.text("flag"));
    assertEquals("", q.text("empty"));
    assertNull(q.text("absent"));
    assertEquals(7, q.integer("absent", 1, 10, 7));
    assertThrows(HttpError.class, () -> q.integer("count", 6, 10, 0));
    assertThrows(HttpError.class, () -> q.integer("flag", 0, 10, 0));
    assertNull(QueryParameters.parse(null).bytes("x"));
  }

  @Test
  void jsonEncoding() {
    Map<String, Object> document = new java.util.LinkedHashMap<>();
    document.put("s", "q\"b\\n\n\t\u0001\u007f é 😀");
    document.put("n", 42L);
    document.put("d", 1.5);
    document.put("nan", Double.NaN);
    document.put("b", true);
    document.put("null", null);
    document.put("list", List.of(1, "x", Map.of("k", List.of())));
    assertEquals(
        "{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f é 😀\",\"n\":42,\"d\":1.5,\"nan\":null,\"b\":true,\"null\":null,"
            + "\"list\":[1,\"x\",{\"k\":[]}]}",
        JsonEncoder.encode(document));
    assertEquals("\"é\"", new String(JsonEncoder.encode("é").getBytes(UTF_8), UTF_8));
  }

  @Test
  void keysAreTextWhenUtf8() {
    assertEquals("plain", ScanRoute.keyJson("plain".getBytes(UTF_8)));
    assertEquals("é\u0000", ScanRoute.keyJson("é\u0000".getBytes(UTF_8)));
    assertEquals(Map.of("base64", "/w=="), ScanRoute.keyJson(new byte[] {(byte) 0xFF}));
    // UTF-8 forbids encoded surrogates (CESU-8): such a key is binary.
    assertEquals(
        Map.of("base64", "7aCA"),
        ScanRoute.keyJson(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}));
  }
}
