package dev.cellar.server.http;

import dev.cellar.Cursor;
import dev.cellar.server.command.ServerContext;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/scan?prefix=&cursor=&count=}: the keys with a prefix, a page at a time, in
 * ascending byte order.
 *
 * <p>Paging. The engine's cursor cannot resume: it walks shards in hash order and holds segments
 * open while it lives, so it cannot wait between HTTP requests. A page is therefore a fresh engine
 * scan of the prefix keeping the {@code count} smallest keys after the cursor ({@link SortedKeyPage}),
 * and the cursor is the last key returned (base64url, so it travels in a query unescaped). Since
 * each engine scan returns every key present throughout it, a key present for the whole walk is
 * returned exactly once, in order; a key added or removed meanwhile may or may not be. The price:
 * every page reads every entry under the prefix (the engine copies key and value), so walking n
 * keys costs n * n / count entry reads. Narrow prefixes and large pages keep this small; for a
 * whole large store, use RESP {@code SCAN}.
 *
 * <p>Keys are JSON strings when they are valid UTF-8 (which a JSON string round-trips exactly),
 * else {@code {"base64": "..."}}, so every key is given unambiguously and text keys stay readable.
 */
final class ScanRoute {
  static final int DEFAULT_COUNT = 100;
  static final int MAX_COUNT = 1000;
  private static final Base64.Encoder CURSOR = Base64.getUrlEncoder().withoutPadding();

  private final ServerContext server;

  ScanRoute(ServerContext server) {
    this.server = server;
  }

  HttpReply scan(QueryParameters query) {
    byte[] prefix = query.bytes("prefix");
    byte[] after = cursor(query.text("cursor"));
    int count = (int) query.integer("count", 1, MAX_COUNT, DEFAULT_COUNT);
    SortedKeyPage page = new SortedKeyPage(after, count);
    try (Cursor cursor = server.store().scan(prefix == null ? new byte[0] : prefix)) {
      while (cursor.hasNext()) {
        page.offer(cursor.next().key());
      }
    }
    List<byte[]> keys = page.keys();
    List<Object> json = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      json.add(keyJson(key));
    }
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("cursor", page.more() ? CURSOR.encodeToString(keys.getLast()) : "");
    document.put("keys", json);
    return HttpReply.json(200, JsonEncoder.encode(document));
  }

  private static byte[] cursor(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest("cursor '" + (text.length() > 32 ? text.substring(0, 32) + "..." : text)
          + "' is not one this server returns: pass the 'cursor' of the previous page, or none to start");
    }
  }

  /** A key as JSON: the string it spells when it is UTF-8, else {@code {"base64": ...}}. */
  static Object keyJson(byte[] key) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(key)).toString();
    } catch (CharacterCodingException e) {
      return Map.of("base64", Base64.getEncoder().encodeToString(key));
    }
  }
}
