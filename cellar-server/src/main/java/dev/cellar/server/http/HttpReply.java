package dev.cellar.server.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the {@link HttpRouter} answers: status, content type, body and any extra headers ({@code
 * Allow}, {@code WWW-Authenticate}).
 */
record HttpReply(int status, String contentType, byte[] body, Map<String, String> headers) {
  static final String JSON = "application/json";
  static final String OCTETS = "application/octet-stream";

  static HttpReply json(int status, String json) {
    return new HttpReply(status, JSON, json.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  static HttpReply bytes(byte[] body) {
    return new HttpReply(200, OCTETS, body, Map.of());
  }

  static HttpReply noContent() {
    return new HttpReply(204, null, new byte[0], Map.of());
  }

  /** The error document every failure uses: {@code {"error": code, "message": text}}. */
  static HttpReply error(int status, String code, String message) {
    return error(status, code, message, Map.of());
  }

  static HttpReply error(int status, String code, String message, Map<String, String> headers) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("error", code);
    document.put("message", message);
    String json = JsonEncoder.encode(document);
    return new HttpReply(status, JSON, json.getBytes(StandardCharsets.UTF_8), headers);
  }

  static HttpReply of(HttpError e) {
    return error(e.status(), e.code(), e.getMessage());
  }

  String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
