package dev.cellar.bench.ipc;

import java.util.Locale;

/** The two commands measured: GET of a loaded key (a hit) and SET of a loaded key. */
enum Op {
  GET,
  SET;

  /** The name in results and on the command line. */
  String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Op parse(String id) {
    for (Op op : values()) {
      if (op.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
        return op;
      }
    }
    throw new IllegalArgumentException("unknown op '" + id + "': expected get or set");
  }
}
