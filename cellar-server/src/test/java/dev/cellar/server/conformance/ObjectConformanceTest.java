package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code OBJECT}: encodings of strings, reference counts, idle times under an LRU policy and use
 * counts under an LFU one, with Redis's errors for the rest.
 */
class ObjectConformanceTest extends AbstractConformanceTest {
  @AfterEach
  void policyBack() throws IOException {
    try (RawClient admin = server.connect()) {
      admin.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
  }

  @Test
  void encodingsAndReferenceCountsOfStrings() throws IOException {
    c.call(
        "MSET",
        "i",
        "12345",
        "neg",
        "-7",
        "zero",
        "0",
        "lead",
        "0123",
        "big",
        "99999999999999999999");
    c.call("SET", "short", "x".repeat(44));
    c.call("SET", "long", "x".repeat(45));
    assertEquals(bulk("int"), c.call("OBJECT", "ENCODING", "i"));
    assertEquals(bulk("int"), c.call("OBJECT", "ENCODING", "neg"));
    assertEquals(bulk("int"), c.call("OBJECT", "encoding", "zero"));
    assertEquals(bulk("embstr"), c.call("OBJECT", "ENCODING", "lead"));
    assertEquals(bulk("embstr"), c.call("OBJECT", "ENCODING", "big"));
    assertEquals(bulk("embstr"), c.call("OBJECT", "ENCODING", "short"));
    assertEquals(bulk("raw"), c.call("OBJECT", "ENCODING", "long"));
    assertEquals(NIL, c.call("OBJECT", "ENCODING", "missing"));
    assertEquals(integer(2147483647), c.call("OBJECT", "REFCOUNT", "zero"));
    assertEquals(integer(1), c.call("OBJECT", "REFCOUNT", "i"));
    assertEquals(integer(1), c.call("OBJECT", "REFCOUNT", "long"));
    assertEquals(NIL, c.call("OBJECT", "REFCOUNT", "missing"));
    assertEquals(arity("object|encoding"), c.call("OBJECT", "ENCODING"));
    assertEquals(
        error("ERR unknown subcommand 'NOPE'. Try OBJECT HELP."), c.call("OBJECT", "NOPE", "i"));
    assertTrue(c.call("OBJECT", "HELP").startsWith("*"));
  }

  /**
   * A string modified in place is {@code raw} whatever its value, until a write replaces it; a
   * modification that changes nothing leaves the encoding alone.
   */
  @Test
  void stringsModifiedInPlaceAreRawUntilReplaced() throws IOException {
    String[][] steps = {
      {"int", "SET", "k", "1"},
      {"raw", "APPEND", "k", "2"},
      {"int", "INCR", "k"},
      {"raw", "SETRANGE", "k", "0", "9"},
      {"int", "SET", "k", "1234"},
      {"int", "SETRANGE", "k", "0", ""},
      {"raw", "SETRANGE", "k", "5", "2"},
      {"embstr", "SET", "k", "abc"},
      {"raw", "SETBIT", "k", "1", "1"},
      {"int", "SET", "k", "0"},
      {"raw", "SETBIT", "k", "7", "0"}, // nothing changed, but Redis unshared it
      {"int", "DECRBY", "k", "0"},
      {"raw", "BITFIELD", "k", "SET", "u8", "0", "255"},
      {"embstr", "GETSET", "k", "short"},
      {"raw", "SETRANGE", "new", "0", "x"},
      {"embstr", "APPEND", "fresh", "x"},
      {"raw", "APPEND", "fresh", "y"},
      {"int", "SET", "fresh", "7"},
    };
    for (String[] step : steps) {
      c.call(java.util.Arrays.copyOfRange(step, 1, step.length));
      String key = step[2];
      assertEquals(bulk(step[0]), c.call("OBJECT", "ENCODING", key), String.join(" ", step));
    }
  }

  @Test
  void useCountsUnderAnLfuPolicyAndErrorsOtherwise() throws IOException {
    c.call("SET", "lfu-key", "v");
    assertTrue(
        c.call("OBJECT", "FREQ", "lfu-key")
            .startsWith(
                "-ERR An LFU maxmemory policy is not selected, access frequency not tracked."));
    assertEquals(OK, c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"));
    c.call("SET", "fresh", "v");
    assertEquals(integer(5), c.call("OBJECT", "FREQ", "fresh"), "a new key starts at 5");
    c.call("GET", "fresh");
    assertEquals(integer(6), c.call("OBJECT", "FREQ", "fresh"), "the first use always counts");
    assertEquals(NIL, c.call("OBJECT", "FREQ", "missing"));
    assertTrue(
        c.call("OBJECT", "IDLETIME", "fresh")
            .startsWith("-ERR An LFU maxmemory policy is selected, idle time not tracked."));
  }

  @Test
  void copyDuplicatesValueAndExpiryAndRefusesWhatRedisRefuses() throws IOException {
    c.call("SET", "src", "value", "EX", "100");
    assertEquals(integer(1), c.call("COPY", "src", "dst"));
    assertEquals(bulk("value"), c.call("GET", "dst"));
    assertEquals(integer(100), c.call("TTL", "dst"));
    c.call("SET", "other", "x");
    assertEquals(integer(0), c.call("COPY", "other", "dst"), "the destination exists");
    assertEquals(bulk("value"), c.call("GET", "dst"));
    assertEquals(integer(1), c.call("COPY", "other", "dst", "REPLACE"));
    assertEquals(bulk("x"), c.call("GET", "dst"));
    assertEquals(integer(-1), c.call("TTL", "dst"), "the replaced value's TTL goes with it");
    assertEquals(integer(0), c.call("COPY", "missing", "dst2"));
    assertEquals(integer(1), c.call("COPY", "src", "dst3", "DB", "0"));
    assertEquals(
        error("ERR source and destination objects are the same"), c.call("COPY", "src", "src"));
    assertEquals(SYNTAX, c.call("COPY", "src", "d", "FOO"));
    assertEquals(NOT_INTEGER, c.call("COPY", "src", "d", "DB", "x"));
    assertEquals(arity("copy"), c.call("COPY", "src"));
  }

  @Test
  void idleTimesUnderAnLruPolicy() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru"));
    c.call("SET", "lru-key", "v");
    assertEquals(integer(0), c.call("OBJECT", "IDLETIME", "lru-key"));
    assertEquals(NIL, c.call("OBJECT", "IDLETIME", "missing"));
  }

  /**
   * {@code RESTORE}'s {@code IDLETIME} dates the key's last use under an LRU policy, longer ago
   * than the server has run, and {@code FREQ} sets its use count under an LFU one; each is ignored
   * under the other policy, as Redis's {@code objectSetLRUOrLFU} ignores it.
   */
  @Test
  void restoreSetsIdleTimeUnderLruAndUseCountUnderLfu() throws IOException {
    c.call("SET", "dumped", "v");
    String payload = (String) RawClient.parse(c.call("DUMP", "dumped"));
    assertEquals(OK, c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"));
    assertEquals(OK, c.call("RESTORE", "idle", "0", payload, "IDLETIME", "1000"));
    long idle = Long.parseLong(c.call("OBJECT", "IDLETIME", "idle").substring(1).trim());
    assertTrue(idle >= 1000 && idle <= 1002, "idle " + idle);
    assertEquals(OK, c.call("RESTORE", "idle2", "0", payload, "FREQ", "100"));
    assertTrue(c.call("OBJECT", "IDLETIME", "idle2").equals(integer(0)), "FREQ ignored by LRU");
    c.call("GET", "idle");
    assertEquals(integer(0), c.call("OBJECT", "IDLETIME", "idle"), "a use makes it fresh");

    assertEquals(OK, c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"));
    assertEquals(OK, c.call("RESTORE", "often", "0", payload, "FREQ", "100"));
    assertEquals(integer(100), c.call("OBJECT", "FREQ", "often"));
    assertEquals(OK, c.call("RESTORE", "often", "0", payload, "REPLACE", "FREQ", "7"));
    assertEquals(integer(7), c.call("OBJECT", "FREQ", "often"));
    assertEquals(OK, c.call("RESTORE", "rare", "0", payload, "IDLETIME", "50"));
    assertEquals(integer(5), c.call("OBJECT", "FREQ", "rare"), "IDLETIME ignored by LFU");
    assertEquals(
        error("ERR Invalid FREQ value, must be >= 0 and <= 255"),
        c.call("RESTORE", "bad", "0", payload, "FREQ", "256"));
    assertEquals(
        error("ERR Invalid IDLETIME value, must be >= 0"),
        c.call("RESTORE", "bad", "0", payload, "IDLETIME", "-1"));
  }

  /**
   * Collections' encodings as Redis names them at its default thresholds: a hash leaves {@code
   * listpack} for good past 512 fields or a 64-byte item, a sorted set past 128 members or a
   * 64-byte one; a set of integers is an {@code intset} up to 512; a list is a {@code listpack}
   * while it fits 8 KiB. Redis 7.0 keeps lists as quicklists and small sets of strings as hash
   * tables, so those parts are checked only against a server that says it is 7.2 or later.
   */
  @Test
  void collectionEncodingsFollowRedisThresholds() throws IOException {
    boolean redis72 = redis72();

    c.call("HSET", "h", "f", "v");
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "h"));
    c.call("HSET", "h", "long", "x".repeat(65));
    assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "h"));
    c.call("HDEL", "h", "long");
    assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "h"), "one way only");
    for (int i = 0; i < 512; i++) {
      c.call("HSET", "h512", "f" + i, "v");
    }
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "h512"));
    c.call("HSET", "h512", "f512", "v");
    assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "h512"));

    c.call("ZADD", "z", "1", "a");
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "z"));
    for (int i = 0; i < 128; i++) {
      c.call("ZADD", "z", Integer.toString(i), "m" + i);
    }
    assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "z"));

    for (int i = 0; i < 512; i++) {
      c.call("SADD", "ints", Integer.toString(i * 1000 - 7));
    }
    assertEquals(bulk("intset"), c.call("OBJECT", "ENCODING", "ints"));
    c.call("SADD", "ints", "512000");
    assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "ints"), "past 512");
    c.call("SADD", "few", "1", "2", "3");
    assertEquals(bulk("intset"), c.call("OBJECT", "ENCODING", "few"));
    for (int i = 0; i < 130; i++) {
      c.call("SADD", "strings", "s" + i);
    }
    assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "strings"));

    c.call("XADD", "x", "*", "f", "v");
    assertEquals(bulk("stream"), c.call("OBJECT", "ENCODING", "x"));
    if (!redis72) {
      return;
    }
    c.call("RPUSH", "l", "a", "b", "123");
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "l"));
    c.call("SADD", "mixed", "a", "1");
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "mixed"));
    for (int i = 0; i < 300; i++) {
      c.call("RPUSH", "many", "e" + i); // 300 entries of 4 to 6 bytes: some 1.6 KiB
    }
    assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "many"));
    for (int i = 0; i < 200; i++) {
      c.call("RPUSH", "big", "x".repeat(50)); // 200 entries of 52 bytes: over 8 KiB
    }
    assertEquals(bulk("quicklist"), c.call("OBJECT", "ENCODING", "big"));
  }

  /**
   * Redis's encoding thresholds may be set at run time, under their names and their old {@code
   * ziplist} ones, and {@code OBJECT ENCODING} follows them. The list and set parts need Redis
   * 7.2's listpack lists and sets.
   */
  @Test
  void encodingsFollowTheThresholdsAsSet() throws IOException {
    boolean redis72 = redis72();
    try {
      assertEquals(
          OK,
          c.call("CONFIG", "SET", "hash-max-listpack-entries", "4", "hash-max-ziplist-value", "8"));
      assertEquals(
          array("hash-max-ziplist-entries", "4"),
          c.call("CONFIG", "GET", "hash-max-ziplist-entries"));
      c.call("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "h"));
      c.call("HSET", "h", "e", "5");
      assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "h"));
      c.call("HDEL", "h", "e", "d");
      assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "h"), "one way only");
      assertEquals(bulk("3"), c.call("HGET", "h", "c"));
      assertEquals(integer(3), c.call("HLEN", "h"));
      c.call("HSET", "hv", "a", "12345678");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "hv"));
      c.call("HSET", "hv", "b", "123456789");
      assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "hv"));
      assertEquals(bulk("123456789"), c.call("HGET", "hv", "b"));

      assertEquals(OK, c.call("CONFIG", "SET", "zset-max-ziplist-entries", "0"));
      c.call("ZADD", "z0", "1", "a");
      assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "z0"));
      assertEquals(OK, c.call("CONFIG", "SET", "zset-max-listpack-entries", "2"));
      c.call("ZADD", "z2", "1", "a", "2", "b");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "z2"));
      c.call("ZADD", "z2", "3", "c");
      assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "z2"));
      assertEquals(array("a", "b", "c"), c.call("ZRANGE", "z2", "0", "-1"));
      assertEquals(OK, c.call("CONFIG", "SET", "zset-max-listpack-value", "3"));
      c.call("ZADD", "zv", "1", "abc");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "zv"));
      c.call("ZADD", "zv", "1", "abcd");
      assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "zv"));
      // Past Cellar's 128 but within a threshold set above it: still a listpack for Redis.
      assertEquals(
          OK,
          c.call(
              "CONFIG",
              "SET",
              "zset-max-listpack-entries",
              "200",
              "zset-max-listpack-value",
              "64"));
      for (int i = 0; i < 200; i++) {
        c.call("ZADD", "z200", Integer.toString(i), "m" + i);
      }
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "z200"));
      c.call("ZADD", "z200", "200", "m200");
      assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "z200"));
      c.call("ZREM", "z200", "m200", "m199");
      assertEquals(bulk("skiplist"), c.call("OBJECT", "ENCODING", "z200"), "one way only");
      assertEquals(integer(199), c.call("ZCARD", "z200"));
      assertEquals(array("m198"), c.call("ZRANGE", "z200", "-1", "-1"));

      assertEquals(OK, c.call("CONFIG", "SET", "set-max-intset-entries", "2"));
      c.call("SADD", "si", "1", "2");
      assertEquals(bulk("intset"), c.call("OBJECT", "ENCODING", "si"));
      if (!redis72) {
        return;
      }
      c.call("SADD", "si", "3");
      assertEquals(
          bulk("hashtable"), c.call("OBJECT", "ENCODING", "si"), "an intset overflows to a table");
      c.call("SADD", "once", "1", "2", "a");
      c.call("SREM", "once", "a");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "once"), "never an intset again");
      c.call("SADD", "grew", "1", "2", "3");
      c.call("SREM", "grew", "3");
      assertEquals(
          bulk("listpack"), c.call("OBJECT", "ENCODING", "grew"), "created for three: a listpack");
      c.call("SADD", "big", "1", "2", "3", "4", "5", "6", "7", "8", "9");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "big"));
      assertEquals(OK, c.call("CONFIG", "SET", "set-max-listpack-entries", "2"));
      c.call("SADD", "sl", "a", "b");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "sl"));
      c.call("SADD", "sl", "c");
      assertEquals(bulk("hashtable"), c.call("OBJECT", "ENCODING", "sl"));
      assertEquals(integer(3), c.call("SCARD", "sl"));

      assertEquals(OK, c.call("CONFIG", "SET", "list-max-listpack-size", "3"));
      c.call("RPUSH", "l3", "a", "b", "c");
      assertEquals(bulk("listpack"), c.call("OBJECT", "ENCODING", "l3"));
      c.call("RPUSH", "l3", "d");
      assertEquals(bulk("quicklist"), c.call("OBJECT", "ENCODING", "l3"));
      assertEquals(OK, c.call("CONFIG", "SET", "list-max-ziplist-size", "-1"));
      for (int i = 0; i < 100; i++) {
        c.call("RPUSH", "l4k", "x".repeat(50)); // 100 entries of 52 bytes: over 4 KiB
      }
      assertEquals(bulk("quicklist"), c.call("OBJECT", "ENCODING", "l4k"));
    } finally {
      c.call(
          "CONFIG",
          "SET",
          "hash-max-listpack-entries",
          "512",
          "hash-max-listpack-value",
          "64",
          "zset-max-listpack-entries",
          "128",
          "zset-max-listpack-value",
          "64",
          "set-max-intset-entries",
          "512",
          "list-max-listpack-size",
          "-2");
      if (redis72) {
        c.call("CONFIG", "SET", "set-max-listpack-entries", "128");
      }
    }
  }

  /**
   * Redis settings of Redis's own machinery, which Cellar ignores in a config file, may be set at
   * run time too (Redis's test suite and tools set them) and read back as set; so may {@code save}.
   * A name that is no setting at all is still refused.
   */
  @Test
  void ignoredRedisSettingsMayBeSetAndReadBack() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "yes"));
    assertEquals(
        array("lazyfree-lazy-user-del", "yes"), c.call("CONFIG", "GET", "lazyfree-lazy-user-del"));
    assertEquals(OK, c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "no"));
    assertEquals(OK, c.call("CONFIG", "SET", "save", ""));
    assertEquals(array("save", ""), c.call("CONFIG", "GET", "save"));
    assertEquals(
        error("ERR Unknown option or number of arguments for CONFIG SET - 'no-such-setting'"),
        c.call("CONFIG", "SET", "no-such-setting", "1"));
  }

  /** Whether the server says it is Redis 7.2 or later (listpack lists and sets). */
}
