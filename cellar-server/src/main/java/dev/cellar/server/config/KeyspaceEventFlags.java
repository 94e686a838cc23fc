package dev.cellar.server.config;

/**
 * {@code notify-keyspace-events}: Redis's event classes as letters, parsed to a bit set and printed
 * back in Redis's canonical order ({@code KEA} reads back {@code AKE}). An empty string turns
 * notifications off, as does a class without {@code K} or {@code E}.
 */
public final class KeyspaceEventFlags {
  private KeyspaceEventFlags() {}

  public static final int GENERIC = 1;
  public static final int STRING = 1 << 1;
  public static final int LIST = 1 << 2;
  public static final int SET = 1 << 3;
  public static final int HASH = 1 << 4;
  public static final int ZSET = 1 << 5;
  public static final int EXPIRED = 1 << 6;
  public static final int EVICTED = 1 << 7;
  public static final int STREAM = 1 << 8;
  public static final int MODULE = 1 << 9;
  public static final int NEW = 1 << 10;
  public static final int KEYSPACE = 1 << 11;
  public static final int KEYEVENT = 1 << 12;
  public static final int KEY_MISS = 1 << 13;

  /** What {@code A} stands for: every class but key misses and new keys, as in Redis. */
  public static final int ALL =
      GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

  private static final String CLASSES = "g$lshzxetdn";
  private static final int[] CLASS_BITS = {
    GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW
  };

  public static int parse(String value) {
    int flags = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      int at = CLASSES.indexOf(c);
      if (at >= 0) {
        flags |= CLASS_BITS[at];
      } else {
        flags |=
            switch (c) {
              case 'A' -> ALL;
              case 'K' -> KEYSPACE;
              case 'E' -> KEYEVENT;
              case 'm' -> KEY_MISS;
              default ->
                  throw new ConfigException(
                      "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            };
      }
    }
    return flags;
  }

  public static String format(int flags) {
    StringBuilder b = new StringBuilder();
    if ((flags & ALL) == ALL) {
      b.append('A');
      if ((flags & NEW) != 0) {
        b.append('n');
      }
    } else {
      for (int i = 0; i < CLASS_BITS.length; i++) {
        if ((flags & CLASS_BITS[i]) != 0) {
          b.append(CLASSES.charAt(i));
        }
      }
    }
    if ((flags & KEYSPACE) != 0) {
      b.append('K');
    }
    if ((flags & KEYEVENT) != 0) {
      b.append('E');
    }
    if ((flags & KEY_MISS) != 0) {
      b.append('m');
    }
    return b.toString();
  }
}
