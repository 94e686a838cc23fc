package dev.cellar.bench.server;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The durability levels compared, each as Redis and as Cellar spell it. Both servers sync the same
 * way at each level: never on the write path, once a second in the background, or before every
 * acknowledgement.
 */
public enum Durability {
  NO("no", List.of("--appendonly", "no")),
  EVERYSEC("everysec", List.of("--appendonly", "yes", "--appendfsync", "everysec")),
  ALWAYS("always", List.of("--appendonly", "yes", "--appendfsync", "always"));

  private final String id;
  private final List<String> redisArguments;

  Durability(String id, List<String> redisArguments) {
    this.id = id;
    this.redisArguments = redisArguments;
  }

  /** The name on the command line, in results, and Cellar's {@code --fsync} value. */
  String id() {
    return id;
  }

  /** The redis-server flags for this level (snapshots are off at every level). */
  List<String> redisArguments() {
    return redisArguments;
  }

  static Durability parse(String id) {
    for (Durability d : values()) {
      if (d.id.equals(id.trim().toLowerCase(Locale.ROOT))) {
        return d;
      }
    }
    throw new IllegalArgumentException(
        "unknown durability '"
            + id
            + "': expected one of "
            + Arrays.stream(values()).map(Durability::id).toList());
  }
}
