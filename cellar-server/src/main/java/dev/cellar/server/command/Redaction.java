package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;

/**
 * Which arguments must never be shown to other clients ({@code SLOWLOG GET}, {@code MONITOR}):
 * passwords. Redis shows them as {@code (redacted)}, and so does Cellar: AUTH's arguments, HELLO's
 * after AUTH, MIGRATE's after AUTH and AUTH2, and the values of CONFIG SET for secret settings.
 */
final class Redaction {
  private Redaction() {}

  static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

  /** Whether {@code request} has any secret argument (cheap: looks at the command name only). */
  static boolean redacts(Request request) {
    return request.is(0, "auth")
        || request.is(0, "hello")
        || request.is(0, "config")
        || request.is(0, "migrate");
  }

  static boolean isSecret(Request request, int i) {
    if (request.is(0, "auth")) {
      return i > 0;
    }
    if (request.is(0, "hello")) {
      return (i >= 2 && request.is(i - 1, "auth")) || (i >= 3 && request.is(i - 2, "auth"));
    }
    if (request.is(0, "migrate")) {
      // ... [AUTH password] [AUTH2 username password], before KEYS: as Redis redacts them
      for (int j = 6; j < request.argc() && j < i; j++) {
        if (request.is(j, "keys")) {
          return false;
        }
        if (request.is(j, "auth")) {
          if (i == j + 1) {
            return true;
          }
          j++;
        } else if (request.is(j, "auth2")) {
          if (i == j + 1 || i == j + 2) {
            return true;
          }
          j += 2;
        }
      }
      return false;
    }
    // CONFIG SET name value [name value ...]
    return request.is(0, "config")
        && request.argc() > 2
        && request.is(1, "set")
        && i >= 3
        && i % 2 == 1
        && (request.is(i - 1, "requirepass") || request.is(i - 1, "tls-key-file-pass"));
  }
}
