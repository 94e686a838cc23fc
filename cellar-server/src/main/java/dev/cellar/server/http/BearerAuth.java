package dev.cellar.server.http;

import dev.cellar.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;

/**
 * {@code --requirepass} over HTTP: {@code Authorization: Bearer <password>}. The token and the
 * password are compared as SHA-256 digests with {@link MessageDigest#isEqual}, which takes the same
 * time wherever the first difference is; hashing first also hides the password's length. The
 * password is read from the config on every request, so {@code CONFIG SET requirepass} applies at
 * once, as it does for RESP.
 */
final class BearerAuth {
  private static final String SCHEME = "bearer ";
  private static final Map<String, String> CHALLENGE =
      Map.of("WWW-Authenticate", "Bearer realm=\"cellar\"");
  private static final Map<String, String> INVALID =
      Map.of("WWW-Authenticate", "Bearer realm=\"cellar\", error=\"invalid_token\"");

  private final ServerConfig config;

  BearerAuth(ServerConfig config) {
    this.config = config;
  }

  /** Null when the call may proceed, else the 401 to answer. */
  HttpReply check(HttpCall call) {
    String password = config.requirePass();
    if (password == null) {
      return null;
    }
    String authorization = call.header().apply("Authorization");
    if (authorization == null
        || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return HttpReply.error(
          401,
          "unauthorized",
          "authentication required: send the server's requirepass as 'Authorization: Bearer <password>'",
          CHALLENGE);
    }
    String token = authorization.substring(SCHEME.length()).strip();
    // Header bytes arrive one character per byte; a non-ASCII password is matched by its UTF-8
    // bytes.
    byte[] presented = token.getBytes(StandardCharsets.ISO_8859_1);
    if (!MessageDigest.isEqual(
        sha256(presented), sha256(password.getBytes(StandardCharsets.UTF_8)))) {
      return HttpReply.error(
          401, "unauthorized", "the bearer token is not the server's password", INVALID);
    }
    return null;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
