package dev.cellar.bench.soak;

import java.util.HashMap;
import java.util.Map;

/** The {@code name:value} lines of an INFO reply, by name. */
public final class InfoFields {
  private final Map<String, String> fields = new HashMap<>();

  public InfoFields(String info) {
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
  }

  /** A numeric field; {@code missing} when the server does not report it. */
  public long number(String name, long missing) {
    String value = fields.get(name);
    return value == null ? missing : Long.parseLong(value);
  }

  /**
   * Keys of db0 from the keyspace line {@code db0:keys=N,expires=...}; 0 when the store is empty.
   */
  long keys() {
    String db0 = fields.get("db0");
    if (db0 == null) {
      return 0;
    }
    for (String part : db0.split(",")) {
      if (part.startsWith("keys=")) {
        return Long.parseLong(part.substring(5));
      }
    }
    return 0;
  }
}
