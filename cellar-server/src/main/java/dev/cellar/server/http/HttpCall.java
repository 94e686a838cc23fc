package dev.cellar.server.http;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * One HTTP request as the {@link HttpRouter} sees it, free of Netty so the router can be unit
 * tested and fuzzed. The body is a view of the request buffer: valid only while the router runs.
 *
 * @param method the request method, upper case ({@code GET})
 * @param uri the request target as sent: path and query, still percent-encoded
 * @param header a header's value by name (any case), or null
 * @param body the body bytes (empty when there is none)
 */
record HttpCall(String method, String uri, Function<String, String> header, MemorySegment body) {

  /** A call with headers from a map (names in any case) and a body copied from an array. */
  static HttpCall of(String method, String uri, Map<String, String> headers, byte[] body) {
    Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    byName.putAll(headers);
    return new HttpCall(method, uri, byName::get, MemorySegment.ofArray(body));
  }
}
