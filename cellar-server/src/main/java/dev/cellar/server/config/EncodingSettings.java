package dev.cellar.server.config;

import dev.cellar.server.collection.PackLimits;

/**
 * Redis's encoding thresholds as settings ({@code hash-max-listpack-entries}, {@code
 * set-max-intset-entries}, {@code zset-max-listpack-value}, {@code list-max-listpack-size} and the
 * rest, with their old {@code ziplist} names), held as one {@link PackLimits} that a command reads
 * once. They change at run time as in Redis, and decide when a collection leaves its packed form
 * and what {@code OBJECT ENCODING} answers (docs/server.md, "Encodings").
 *
 * <p>Ranges as in Redis 7.2: the entry counts 0 to 2^63 - 1, the value sizes in bytes (with Redis's
 * memory units), the list size any 32-bit integer.
 */
final class EncodingSettings {
  private static final int HASH_ENTRIES = 0;
  private static final int HASH_VALUE = 1;
  private static final int SET_INTSET_ENTRIES = 2;
  private static final int SET_ENTRIES = 3;
  private static final int SET_VALUE = 4;
  private static final int ZSET_ENTRIES = 5;
  private static final int ZSET_VALUE = 6;
  private static final int LIST_SIZE = 7;

  /** The thresholds in {@link PackLimits}'s order; written under this object's lock. */
  private final long[] values = {512, 64, 512, 128, 64, 128, 64, -2};

  private volatile PackLimits limits = PackLimits.REDIS_DEFAULTS;

  PackLimits limits() {
    return limits;
  }

  /** Registers the settings, each under its name and, where Redis has one, its old name. */
  void defineIn(ServerConfig config) {
    define(config, HASH_ENTRIES, false, "hash-max-listpack-entries", "hash-max-ziplist-entries");
    define(config, HASH_VALUE, true, "hash-max-listpack-value", "hash-max-ziplist-value");
    define(config, SET_INTSET_ENTRIES, false, "set-max-intset-entries");
    define(config, SET_ENTRIES, false, "set-max-listpack-entries");
    define(config, SET_VALUE, true, "set-max-listpack-value");
    define(config, ZSET_ENTRIES, false, "zset-max-listpack-entries", "zset-max-ziplist-entries");
    define(config, ZSET_VALUE, true, "zset-max-listpack-value", "zset-max-ziplist-value");
    define(config, LIST_SIZE, false, "list-max-listpack-size", "list-max-ziplist-size");
  }

  private void define(ServerConfig config, int field, boolean bytes, String... names) {
    String name = names[0];
    for (String n : names) {
      config.define(
          n,
          true,
          () -> Long.toString(valueOf(limits, field)),
          v -> set(field, parse(name, field, bytes, v)));
    }
  }

  private static long valueOf(PackLimits l, int field) {
    return switch (field) {
      case HASH_ENTRIES -> l.hashEntries();
      case HASH_VALUE -> l.hashValue();
      case SET_INTSET_ENTRIES -> l.setIntsetEntries();
      case SET_ENTRIES -> l.setEntries();
      case SET_VALUE -> l.setValue();
      case ZSET_ENTRIES -> l.zsetEntries();
      case ZSET_VALUE -> l.zsetValue();
      default -> l.listSize();
    };
  }

  private static long parse(String name, int field, boolean bytes, String v) {
    if (field == LIST_SIZE) {
      return ServerConfig.longIn(name, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
    return bytes
        ? ServerConfig.parseBytes(name, v)
        : ServerConfig.longIn(name, v, 0, Long.MAX_VALUE);
  }

  private synchronized void set(int field, long value) {
    values[field] = value;
    limits =
        new PackLimits(
            values[HASH_ENTRIES],
            values[HASH_VALUE],
            values[SET_INTSET_ENTRIES],
            values[SET_ENTRIES],
            values[SET_VALUE],
            values[ZSET_ENTRIES],
            values[ZSET_VALUE],
            (int) values[LIST_SIZE]);
  }
}
