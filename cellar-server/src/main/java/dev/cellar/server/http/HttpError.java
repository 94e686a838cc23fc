package dev.cellar.server.http;

/**
 * A request the server answers with an error: the HTTP status, a stable machine-readable code
 * ({@code bad_request}, {@code too_large}, ...; see {@code docs/http.md}) and a message that says
 * what to change. No stack trace: these are answers, not bugs.
 */
final class HttpError extends RuntimeException {
  private final int status;
  private final String code;

  HttpError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  static HttpError badRequest(String message) {
    return new HttpError(400, "bad_request", message);
  }

  static HttpError tooLarge(String message) {
    return new HttpError(413, "too_large", message);
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }
}
