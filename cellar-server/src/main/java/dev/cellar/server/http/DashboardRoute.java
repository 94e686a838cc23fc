package dev.cellar.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * {@code GET /}: the live dashboard, one HTML page with its CSS and script inline, read once from
 * the jar. It carries no data, so it is served without the password; the page reads {@code
 * /v1/stats} every second, and that needs the bearer token like every other endpoint. The policy
 * header forbids the page any other origin, so it works offline and cannot be made to load a script
 * from elsewhere. ({@code img-src data:} is for the empty inline icon, which spares the browser a
 * request for {@code /favicon.ico}.)
 */
final class DashboardRoute {
  static final String RESOURCE = "dashboard.html";
  private static final Map<String, String> HEADERS =
      Map.of(
          "Content-Security-Policy",
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:;"
              + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
          "Cache-Control",
          "no-cache",
          "X-Content-Type-Options",
          "nosniff");

  private final byte[] page;

  DashboardRoute() {
    try (InputStream in = DashboardRoute.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the dashboard page "
                + RESOURCE
                + " is missing from the jar next to "
                + DashboardRoute.class.getName());
      }
      page = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "reading the dashboard page " + RESOURCE + " from the jar failed", e);
    }
  }

  HttpReply page() {
    return new HttpReply(200, "text/html; charset=utf-8", page, HEADERS);
  }
}
