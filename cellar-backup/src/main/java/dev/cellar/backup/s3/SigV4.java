package dev.cellar.backup.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for S3, as the AWS documentation specifies it ("Signature Version 4
 * signing process"): a canonical request of the method, the URI path, the sorted query, the signed
 * headers and the payload's SHA-256; a string to sign over it, scoped to the day, region and
 * service; and a signing key derived from the secret by four HMAC-SHA256 steps. The payload hash is
 * the real one (never {@code UNSIGNED-PAYLOAD}), so the store checks every byte it receives against
 * the digest the backup records anyway.
 */
final class SigV4 {
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final String SERVICE = "s3";

  private SigV4() {}

  /**
   * The headers to add to a request: {@code x-amz-date}, {@code x-amz-content-sha256}, the session
   * token if any, and {@code Authorization}.
   *
   * @param host the {@code Host} header the HTTP client will send ({@code host[:port]})
   * @param path the request's path, already URI-encoded as it is sent
   * @param query the query parameters, not encoded
   */
  static Map<String, String> sign(
      S3Credentials credentials,
      String region,
      String method,
      String host,
      String path,
      Map<String, String> query,
      String payloadSha256,
      ZonedDateTime now) {
    String amzDate = AMZ_DATE.format(now);
    String day = amzDate.substring(0, 8);
    TreeMap<String, String> headers = new TreeMap<>();
    headers.put("host", host);
    headers.put("x-amz-content-sha256", payloadSha256);
    headers.put("x-amz-date", amzDate);
    if (credentials.sessionToken() != null) {
      headers.put("x-amz-security-token", credentials.sessionToken());
    }
    StringBuilder canonicalHeaders = new StringBuilder();
    headers.forEach((k, v) -> canonicalHeaders.append(k).append(':').append(v.trim()).append('\n'));
    String signedHeaders = String.join(";", headers.keySet());
    String canonicalRequest =
        method
            + '\n'
            + path
            + '\n'
            + canonicalQuery(query)
            + '\n'
            + canonicalHeaders
            + '\n'
            + signedHeaders
            + '\n'
            + payloadSha256;
    String scope = day + '/' + region + '/' + SERVICE + "/aws4_request";
    String stringToSign =
        "AWS4-HMAC-SHA256\n" + amzDate + '\n' + scope + '\n' + hex(sha256(canonicalRequest));
    byte[] key = hmac(("AWS4" + credentials.secretKey()).getBytes(StandardCharsets.UTF_8), day);
    key = hmac(key, region);
    key = hmac(key, SERVICE);
    key = hmac(key, "aws4_request");
    String signature = hex(hmac(key, stringToSign));
    headers.remove("host"); // the HTTP client sends it; it may not be set by hand
    headers.put(
        "Authorization",
        "AWS4-HMAC-SHA256 Credential="
            + credentials.accessKey()
            + '/'
            + scope
            + ", SignedHeaders="
            + signedHeaders
            + ", Signature="
            + signature);
    return headers;
  }

  /** Parameters sorted by name, each name and value encoded; {@code a=1&b=}. */
  static String canonicalQuery(Map<String, String> query) {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(query)
        .forEach(
            (k, v) -> {
              if (!out.isEmpty()) {
                out.append('&');
              }
              out.append(encode(k, true)).append('=').append(encode(v, true));
            });
    return out.toString();
  }

  /**
   * URI-encodes as SigV4 wants: the unreserved characters {@code A-Z a-z 0-9 - _ . ~} as they are,
   * everything else as {@code %XY} of its UTF-8 bytes; {@code /} kept unless {@code slash}.
   */
  static String encode(String s, boolean slash) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || (c == '/' && !slash)) {
        out.append(c);
      } else {
        out.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
      }
    }
    return out.toString();
  }

  static byte[] sha256(String s) {
    return sha256(s.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no HmacSHA256", e);
    }
  }
}
