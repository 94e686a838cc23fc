package dev.cellar.server.http;

import dev.cellar.ScanPage;
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
 * {@code GET /v1/scan?prefix=&cursor=&count=}: the keys with a prefix, a page at a time.
 *
 * <p>Paging rides on the engine's resumable scan ({@link dev.cellar.Cellar#scanPage}), the one RESP
 * {@code SCAN} uses: the cursor is the engine's position (shard and hash range) as a decimal,
 * {@code ""} once the walk is complete, so pages cost what they return, no server state is kept,
 * and a key present for the whole walk is returned exactly once. Keys come in hash order, not
 * sorted. A page gathers engine pages until it holds {@code count} keys, the walk ends, or it has
 * read {@value #MAX_ENGINE_PAGES} engine pages (a rare prefix then gives short pages, never a long
 * request).
 *
 * <p>Keys are JSON strings when they are valid UTF-8 (which a JSON string round-trips exactly),
 * else {@code {"base64": "..."}}, so every key is given unambiguously and text keys stay readable.
 */
final class ScanRoute {
  static final int DEFAULT_COUNT = 100;
  static final int MAX_COUNT = 1000;

  /**
   * Bounds one request's work when a prefix is rare: the answer then has fewer keys and a cursor.
   */
  static final int MAX_ENGINE_PAGES = 64;

  private final ServerContext server;

  ScanRoute(ServerContext server) {
    this.server = server;
  }

  HttpReply scan(QueryParameters query) {
    byte[] prefix = query.bytes("prefix");
    long cursor = cursor(query.text("cursor"));
    int count = (int) query.integer("count", 1, MAX_COUNT, DEFAULT_COUNT);
    List<Object> json = new ArrayList<>();
    ScanPage page;
    int enginePages = 0;
    do {
      try {
        page = server.store().scanPage(cursor, prefix == null ? new byte[0] : prefix, count);
      } catch (dev.cellar.StoreClosedException e) {
        throw e;
      } catch (dev.cellar.CellarException e) {
        throw invalidCursor(Long.toUnsignedString(cursor));
      }
      for (byte[] key : page.keys()) {
        json.add(keyJson(key));
      }
      cursor = page.nextCursor();
    } while (!page.complete() && json.size() < count && ++enginePages < MAX_ENGINE_PAGES);
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("cursor", page.complete() ? "" : Long.toUnsignedString(cursor));
    document.put("keys", json);
    return HttpReply.json(200, JsonEncoder.encode(document));
  }

  private static long cursor(String text) {
    if (text == null || text.isEmpty()) {
      return ScanPage.START;
    }
    try {
      return Long.parseUnsignedLong(text);
    } catch (NumberFormatException e) {
      throw invalidCursor(text);
    }
  }

  private static HttpError invalidCursor(String text) {
    return HttpError.badRequest(
        "cursor '"
            + (text.length() > 32 ? text.substring(0, 32) + "..." : text)
            + "' is not one this server returns: pass the 'cursor' of the previous page, or none to start");
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
