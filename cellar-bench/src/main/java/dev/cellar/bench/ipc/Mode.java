package dev.cellar.bench.ipc;

import java.util.Locale;

/**
 * How the client hands a GET's value to the application: copied into a new array, or lent in place
 * ({@code Pipeline.read}: a view of the value where it arrived, in the response ring over shared
 * memory, in the receive buffer over TCP). A SET always copies the caller's array once, into the
 * ring or the socket buffer, so it has the one mode.
 */
enum Mode {
  COPY("copy"),
  ZERO_COPY("zero-copy");

  private final String id;

  Mode(String id) {
    this.id = id;
  }

  /** The name in results and on the command line. */
  String id() {
    return id;
  }

  /** Whether {@code op} is measured in this mode. */
  boolean appliesTo(Op op) {
    return this == COPY || op == Op.GET;
  }

  static Mode parse(String id) {
    for (Mode mode : values()) {
      if (mode.id.equals(id.trim().toLowerCase(Locale.ROOT))) {
        return mode;
      }
    }
    throw new IllegalArgumentException("unknown mode '" + id + "': expected copy or zero-copy");
  }
}
