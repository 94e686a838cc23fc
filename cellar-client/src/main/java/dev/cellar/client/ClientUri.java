package dev.cellar.client;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * {@code cellar://[user:password@]host[:port]}: where to connect, and the credentials if any. The
 * user and password are percent-decoded ({@code %40} for an {@code @} in a password); an empty user
 * ({@code cellar://:secret@host}) is Redis's {@code default}.
 */
record ClientUri(String host, int port, String user, String password) {
  static final int DEFAULT_PORT = 6379;

  static ClientUri parse(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw invalid(text, e.getMessage());
    }
    if (!"cellar".equalsIgnoreCase(uri.getScheme())) {
      throw invalid(text, "the scheme must be cellar://");
    }
    if (uri.getHost() == null) {
      throw invalid(text, "no host");
    }
    if ((uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))
        || uri.getQuery() != null) {
      throw invalid(text, "nothing may follow host:port (use ClientOptions for settings)");
    }
    String user = null;
    String password = null;
    String info = uri.getUserInfo();
    if (info != null) {
      int colon = info.indexOf(':');
      if (colon < 0) {
        throw invalid(text, "a user needs a password: cellar://user:password@host:port");
      }
      user = colon == 0 ? null : info.substring(0, colon);
      password = info.substring(colon + 1);
    }
    return new ClientUri(
        uri.getHost(), uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), user, password);
  }

  private static IllegalArgumentException invalid(String text, String why) {
    // The text may hold a password: say what is wrong without repeating it.
    return new IllegalArgumentException(
        "not a Cellar URI ("
            + why
            + "); expected cellar://[user:password@]host[:port]"
            + (text.contains("@") ? "" : ", got " + text));
  }
}
