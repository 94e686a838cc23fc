package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Cellar and a real {@code redis-server}, side by side in one test: seeded random command sequences
 * go to both, and every reply is compared byte for byte. The commands cover strings, bitmaps, keys
 * and expiry, HyperLogLogs, GEO, several databases ({@code SELECT}, {@code MOVE}, {@code SWAPDB},
 * {@code COPY ... DB}, {@code FLUSHDB}, outside {@code MULTI}), hashes, lists, sets, sorted sets,
 * streams with consumer groups, SORT, transactions with WATCH (and a second client writing watched
 * keys between WATCH and EXEC), scripts and functions, across a small key space so that commands
 * keep meeting each other's keys, types and errors.
 *
 * <p>Normalised on purpose, and only these: {@code TTL}/{@code PTTL} may differ by the time that
 * passed between the two servers' replies (within 1 s / 1000 ms); {@code KEYS}, {@code HKEYS},
 * {@code HVALS}, {@code SMEMBERS}, {@code SINTER}/{@code SUNION}/{@code SDIFF}, {@code
 * SRANDMEMBER}/{@code SPOP} of the whole set, {@code SORT ... BY pattern ALPHA} (whose ties keep a
 * set's hash order) and {@code HSCAN}/{@code SSCAN} pages are compared as sets and {@code HGETALL}
 * as a set of pairs, because neither server defines their order (and the two store collections
 * differently). Commands whose replies are random or timing-dependent by nature ({@code RANDOMKEY},
 * {@code SCAN} cursors, {@code INFO}, stream ids from {@code *}, {@code XPENDING}'s idle times,
 * {@code XINFO}) are not generated; neither are scripts whose error text comes from the Lua
 * interpreter itself (docs/scripting.md: LuaJ's words differ), expiries short enough to pass during
 * a run, approximate stream trims ({@code ~}, which Cellar applies exactly) or {@code SORT ... BY
 * nosort} (a set's own order); docs/server.md says why each differs.
 *
 * <p>CI runs {@link #SEEDS} seeds of {@link #STEPS} commands; {@code -Pslow} runs 40 seeds of
 * 5,000. A failure names the seed, the step and the commands before it.
 */
class DifferentialTest {
  private static final int SEEDS = 4;
  private static final int STEPS = 1500;

  @Test
  void randomCommandsGetRedisRepliesByteForByte() throws Exception {
    run(SEEDS, STEPS);
  }

  @Test
  @Tag("slow")
  void manyMoreRandomCommands() throws Exception {
    run(40, 5000);
  }

  private void run(int seeds, int steps) throws Exception {
    ToolRun.assumeInstalled("redis-server");
    Path cellarDir = Files.createTempDirectory("differential-cellar");
    Path redisDir = Files.createTempDirectory("differential-redis");
    try (TargetServer cellar = TargetServer.startCellar(cellarDir);
        TargetServer redis = TargetServer.startRedis(redisDir)) {
      long compared = 0;
      for (int seed = 1; seed <= seeds; seed++) {
        compared += runSeed(seed, steps, cellar, redis);
      }
      assertTrue(compared >= (long) seeds * steps, "compared only " + compared + " replies");
    } finally {
      AbstractConformanceTest.deleteRecursively(cellarDir);
      AbstractConformanceTest.deleteRecursively(redisDir);
    }
  }

  /**
   * DUMP on one server, RESTORE on the other, both ways, for every type and both of Redis's
   * encodings of each (its compact one for small values, its plain one for large; a stream with
   * consumer groups, and one of several nodes): the restored value reads back as the original does.
   */
  @Test
  void dumpPayloadsMoveBetweenTheServers() throws Exception {
    ToolRun.assumeInstalled("redis-server");
    Path cellarDir = Files.createTempDirectory("dump-cellar");
    Path redisDir = Files.createTempDirectory("dump-redis");
    try (TargetServer cellar = TargetServer.startCellar(cellarDir);
        TargetServer redis = TargetServer.startRedis(redisDir);
        RawClient c = cellar.connect();
        RawClient r = redis.connect()) {
      List<String[]> fill = new ArrayList<>();
      fill.add(new String[] {"SET", "s1", "hello"});
      fill.add(new String[] {"SET", "s2", "-12345"});
      fill.add(new String[] {"SET", "s3", "ab".repeat(3000)});
      List<String> many = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        many.add("m" + i);
      }
      fill.add(concat(new String[] {"RPUSH", "l1", "a", "b", "7"}, List.of()));
      fill.add(concat(new String[] {"RPUSH", "l2"}, many));
      fill.add(new String[] {"SADD", "set1", "1", "2", "300000"});
      fill.add(new String[] {"SADD", "set2", "x", "y"});
      fill.add(concat(new String[] {"SADD", "set3"}, many));
      fill.add(new String[] {"HSET", "h1", "f", "v", "n", "42"});
      List<String> pairs = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        pairs.add("f" + i);
        pairs.add("v" + i);
      }
      fill.add(concat(new String[] {"HSET", "h2"}, pairs));
      fill.add(new String[] {"ZADD", "z1", "1", "a", "2.5", "b", "-inf", "c"});
      List<String> scored = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        scored.add(Integer.toString(i));
        scored.add("m" + i);
      }
      fill.add(concat(new String[] {"ZADD", "z2"}, scored));
      // Streams: entries with the first entry's fields and with others, a deletion, two groups
      // with pending entries held by three consumers, an acknowledgement and a claim; and one of
      // 300 entries, which Redis keeps in several nodes.
      for (int i = 0; i < 12; i++) {
        fill.add(new String[] {"XADD", "x1", "100-" + i, "f", "v" + i, "n", Integer.toString(i)});
      }
      fill.add(new String[] {"XADD", "x1", "200-0", "other", "field"});
      fill.add(new String[] {"XDEL", "x1", "100-3"});
      fill.add(new String[] {"XGROUP", "CREATE", "x1", "g1", "0"});
      fill.add(new String[] {"XGROUP", "CREATE", "x1", "g0", "100-6"});
      fill.add(
          new String[] {"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "4", "STREAMS", "x1", ">"});
      fill.add(
          new String[] {"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "2", "STREAMS", "x1", ">"});
      fill.add(
          new String[] {"XREADGROUP", "GROUP", "g0", "carol", "COUNT", "3", "STREAMS", "x1", ">"});
      fill.add(new String[] {"XACK", "x1", "g1", "100-0"});
      fill.add(new String[] {"XCLAIM", "x1", "g1", "bob", "0", "100-1"});
      for (int i = 0; i < 300; i++) {
        fill.add(new String[] {"XADD", "x2", (1000 + i / 4) + "-" + (i % 4), "k", "v" + i});
      }
      for (String[] command : fill) {
        c.call(command);
        r.call(command);
      }
      String[][] reads = {
        {"GET", "s1"},
        {"GET", "s2"},
        {"GET", "s3"},
        {"LRANGE", "l1", "0", "-1"},
        {"LRANGE", "l2", "0", "-1"},
        {"SMEMBERS", "set1"},
        {"SMEMBERS", "set2"},
        {"SMEMBERS", "set3"},
        {"HGETALL", "h1"},
        {"HGETALL", "h2"},
        {"ZRANGE", "z1", "0", "-1", "WITHSCORES"},
        {"ZRANGE", "z2", "0", "-1", "WITHSCORES"},
        {"XRANGE", "x1", "-", "+"},
        {"XRANGE", "x2", "-", "+"},
        {"XPENDING", "x1", "g1"},
        {"XPENDING", "x1", "g0"},
        {"XLEN", "x1"},
        {"XINFO", "GROUPS", "x1"},
        {"XINFO", "GROUPS", "x2"}
      };
      for (RawClient[] way : new RawClient[][] {{r, c}, {c, r}}) {
        for (String[] read : reads) {
          int at = read[0].equals("XINFO") ? 2 : 1;
          String key = read[at];
          Object payload = RawClient.parse(way[0].call("DUMP", key));
          String restored = way[1].call("RESTORE", key + ":copy", "0", (String) payload, "REPLACE");
          assertTrue(restored.equals("+OK\r\n"), key + ": " + restored);
          String[] copy = read.clone();
          copy[at] = key + ":copy";
          String original = way[0].call(read);
          String moved = way[1].call(copy);
          assertTrue(same(read, original, moved), key + ": " + original + " became " + moved);
          if (read[0].equals("XRANGE")) {
            // A restored stream takes new entries after its last id, on both servers.
            String grown = key + ":grown";
            way[1].call("RESTORE", grown, "0", (String) payload, "REPLACE");
            String added = way[1].call("XADD", grown, "*", "after", "restore");
            assertTrue(added.startsWith("$"), grown + ": " + added);
            assertTrue(
                way[1].call("XRANGE", grown, "-", "+").endsWith("after\r\n$7\r\nrestore\r\n"),
                grown);
          }
        }
      }
      assertTrue(c.call("RESTORE", "bad", "0", "garbage").startsWith("-ERR DUMP payload"));
    } finally {
      AbstractConformanceTest.deleteRecursively(cellarDir);
      AbstractConformanceTest.deleteRecursively(redisDir);
    }
  }

  private static String[] concat(String[] head, List<String> tail) {
    List<String> all = new ArrayList<>(List.of(head));
    all.addAll(tail);
    return all.toArray(new String[0]);
  }

  private long runSeed(int seed, int steps, TargetServer cellar, TargetServer redis)
      throws IOException {
    cellar.flushAll();
    redis.flushAll();
    try (RawClient c1 = cellar.connect();
        RawClient c2 = cellar.connect();
        RawClient r1 = redis.connect();
        RawClient r2 = redis.connect()) {
      for (RawClient c : List.of(c1, r1)) {
        c.call("FUNCTION", "FLUSH");
        c.call(
            "FUNCTION",
            "LOAD",
            "#!lua name=difflib\n"
                + "redis.register_function('bump', function(keys, args)"
                + " return redis.call('incrby', keys[1], args[1]) end)\n"
                + "redis.register_function{function_name='peek', callback=function(keys, args)"
                + " return redis.call('get', keys[1]) end, flags={'no-writes'}}");
      }
      Generator g = new Generator(new Random(seed));
      Deque<String> history = new ArrayDeque<>();
      long compared = 0;
      for (int step = 0; step < steps; step++) {
        Generator.Step s = g.next();
        RawClient onCellar = s.second() ? c2 : c1;
        RawClient onRedis = s.second() ? r2 : r1;
        String cellarReply = onCellar.call(s.args());
        String redisReply = onRedis.call(s.args());
        history.addLast((s.second() ? "[2] " : "") + String.join(" ", s.args()));
        if (history.size() > 80) {
          history.removeFirst();
        }
        if (!same(s.args(), cellarReply, redisReply)) {
          fail(
              "seed "
                  + seed
                  + ", step "
                  + step
                  + ": "
                  + String.join(" ", s.args())
                  + "\nredis:  "
                  + printable(redisReply)
                  + "\ncellar: "
                  + printable(cellarReply)
                  + "\nlast commands:\n  "
                  + String.join("\n  ", history));
        }
        compared++;
      }
      // Whatever was left open ends the same way on both.
      for (RawClient c : List.of(c1, c2, r1, r2)) {
        c.call("DISCARD");
        c.call("UNWATCH");
      }
      return compared;
    }
  }

  private static boolean same(String[] args, String cellar, String redis) {
    if (cellar.equals(redis)) {
      return true;
    }
    String name = args[0].toUpperCase();
    if ((name.equals("TTL") || name.equals("PTTL"))
        && cellar.startsWith(":")
        && redis.startsWith(":")) {
      long a = Long.parseLong(cellar.substring(1).trim());
      long b = Long.parseLong(redis.substring(1).trim());
      long tolerance = name.equals("TTL") ? 1 : 1000;
      return (a >= 0) == (b >= 0) && Math.abs(a - b) <= tolerance;
    }
    if (UNORDERED.contains(name) || alphaByPattern(args)) {
      return sortedElements(cellar).equals(sortedElements(redis));
    }
    if (PAIRS.contains(name)) {
      return sortedPairs(cellar).equals(sortedPairs(redis));
    }
    if (name.equals("SSCAN") || name.equals("HSCAN")) {
      Object a = RawClient.parse(cellar);
      Object b = RawClient.parse(redis);
      return a instanceof List<?> x
          && b instanceof List<?> y
          && x.size() == 2
          && y.size() == 2
          && x.get(0).equals(y.get(0))
          && (name.equals("SSCAN")
              ? sorted(x.get(1)).equals(sorted(y.get(1)))
              : pairs(x.get(1)).equals(pairs(y.get(1))));
    }
    return false;
  }

  /**
   * {@code SORT ... BY pattern ALPHA}: elements whose weights are both missing compare equal in
   * Redis's {@code sortCompare} (no tie-break, unlike numeric sorts), so they keep the order the
   * source gave them, which for a set or sorted set is its hash table's, seeded at random when
   * redis-server starts.
   */
  private static boolean alphaByPattern(String[] args) {
    boolean by = false;
    boolean alpha = false;
    for (String a : args) {
      by |= a.equalsIgnoreCase("BY");
      alpha |= a.equalsIgnoreCase("ALPHA");
    }
    return args[0].toUpperCase().startsWith("SORT") && by && alpha;
  }

  /** Replies that are sets whose order Redis does not define (nor does Cellar's match it). */
  private static final java.util.Set<String> UNORDERED =
      java.util.Set.of(
          "KEYS", "HKEYS", "HVALS", "SMEMBERS", "SINTER", "SUNION", "SDIFF", "SRANDMEMBER", "SPOP");

  /** Replies that are field-value pairs in no defined order. */
  private static final java.util.Set<String> PAIRS = java.util.Set.of("HGETALL");

  static final java.util.Set<String> NORMALISED;

  static {
    java.util.Set<String> all = new java.util.HashSet<>(UNORDERED);
    all.addAll(PAIRS);
    all.addAll(java.util.Set.of("TTL", "PTTL", "SSCAN", "HSCAN"));
    NORMALISED = java.util.Set.copyOf(all);
  }

  private static List<String> sortedPairs(String reply) {
    return pairs(RawClient.parse(reply));
  }

  private static List<String> pairs(Object parsed) {
    if (!(parsed instanceof List<?> list)) {
      return List.of(String.valueOf(parsed));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i + 1 < list.size(); i += 2) {
      out.add(list.get(i) + "=" + list.get(i + 1));
    }
    out.sort(null);
    return out;
  }

  private static List<String> sorted(Object parsed) {
    if (!(parsed instanceof List<?> list)) {
      return List.of(String.valueOf(parsed));
    }
    List<String> out = new ArrayList<>();
    for (Object o : list) {
      out.add(String.valueOf(o));
    }
    out.sort(null);
    return out;
  }

  private static List<String> sortedElements(String reply) {
    Object parsed = RawClient.parse(reply);
    if (!(parsed instanceof List<?> list)) {
      return List.of(reply);
    }
    List<String> out = new ArrayList<>();
    for (Object o : list) {
      out.add(String.valueOf(o));
    }
    out.sort(null);
    return out;
  }

  private static String printable(String reply) {
    return reply.replace("\r\n", "\\r\\n");
  }

  /** Seeded commands over a small key space, with their arguments drawn to hit edge cases. */
  static final class Generator {
    record Step(String[] args, boolean second) {}

    private static final java.util.Set<String> NORMALISED = DifferentialTest.NORMALISED;

    private final Random random;
    private boolean inMulti;

    Generator(Random random) {
      this.random = random;
    }

    private String key() {
      return "k" + random.nextInt(8);
    }

    private String value() {
      return switch (random.nextInt(6)) {
        case 0 -> Integer.toString(random.nextInt(200) - 100);
        case 1 -> "";
        case 2 -> "x".repeat(random.nextInt(40));
        case 3 -> "3.5";
        case 4 -> "abc" + random.nextInt(10);
        default -> "9223372036854775807";
      };
    }

    /** {@code n} elements for a HyperLogLog, from a range small enough that some repeat. */
    private List<String> elements(int n) {
      List<String> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add("e" + random.nextInt(500));
      }
      return out;
    }

    private String number() {
      return switch (random.nextInt(5)) {
        case 0 -> "x";
        case 1 -> Integer.toString(-random.nextInt(50));
        case 2 -> "9223372036854775807";
        default -> Integer.toString(random.nextInt(50));
      };
    }

    private String ttl() {
      return Integer.toString(500 + random.nextInt(5000)); // never passes during a run
    }

    Step next() {
      if (!inMulti && random.nextInt(40) == 0) {
        // The other client writes a key: between WATCH and EXEC it must fail the transaction.
        return new Step(new String[] {"SET", key(), value()}, true);
      }
      if (!inMulti && random.nextInt(25) == 0) {
        // Outside MULTI only: Cellar keeps a transaction in one database (docs/server.md).
        return new Step(database(key()), false);
      }
      String[] args = command();
      while (inMulti && NORMALISED.contains(args[0])) {
        args = command(); // their replies are compared loosely, which an EXEC's array is not
      }
      String name = args[0];
      if (name.equals("MULTI")) {
        inMulti = true;
      } else if (name.equals("EXEC") || name.equals("DISCARD")) {
        inMulti = false;
      }
      return new Step(args, false);
    }

    private String[] command() {
      int pick = random.nextInt(100);
      String k = key();
      if (pick < 8) {
        return switch (random.nextInt(6)) {
          case 0 -> new String[] {"SET", k, value()};
          case 1 -> new String[] {"SET", k, value(), "EX", ttl()};
          case 2 -> new String[] {"SET", k, value(), "NX"};
          case 3 -> new String[] {"SET", k, value(), "XX", "GET"};
          case 4 -> new String[] {"SET", k, value(), "KEEPTTL"};
          default -> new String[] {"SET", k, value(), "PX", ttl() + "000", "GET"};
        };
      }
      if (pick < 14) {
        return new String[] {"GET", k};
      }
      if (pick < 18) {
        return switch (random.nextInt(4)) {
          case 0 -> new String[] {"INCR", k};
          case 1 -> new String[] {"DECRBY", k, number()};
          case 2 -> new String[] {"INCRBY", k, number()};
          default -> new String[] {"INCRBYFLOAT", k, random.nextBoolean() ? "1.5" : "-0.25"};
        };
      }
      if (pick < 22) {
        return switch (random.nextInt(5)) {
          case 0 -> new String[] {"APPEND", k, value()};
          case 1 -> new String[] {"STRLEN", k};
          case 2 -> new String[] {"GETRANGE", k, number(), number()};
          case 3 -> new String[] {"SETRANGE", k, Integer.toString(random.nextInt(20)), value()};
          default -> new String[] {"GETDEL", k};
        };
      }
      if (pick < 26) {
        return switch (random.nextInt(4)) {
          case 0 -> new String[] {"MSET", k, value(), key(), value()};
          case 1 -> new String[] {"MGET", k, key(), key()};
          case 2 -> new String[] {"MSETNX", k, value(), key(), value()};
          default -> new String[] {"GETSET", k, value()};
        };
      }
      if (pick < 32) {
        return switch (random.nextInt(7)) {
          case 0 -> new String[] {"DEL", k, key()};
          case 1 -> new String[] {"EXISTS", k, key(), k};
          case 2 -> new String[] {"TYPE", k};
          case 3 -> new String[] {"RENAME", k, key()};
          case 4 -> new String[] {"RENAMENX", k, key()};
          case 5 -> copy(k);
          default -> new String[] {"UNLINK", k};
        };
      }
      if (pick < 38) {
        return switch (random.nextInt(7)) {
          case 0 -> new String[] {"EXPIRE", k, ttl()};
          case 1 -> new String[] {"EXPIRE", k, ttl(), pickOf("NX", "XX", "GT", "LT")};
          case 2 -> new String[] {"PERSIST", k};
          case 3 -> new String[] {"TTL", k};
          case 4 -> new String[] {"PTTL", k};
          case 5 -> new String[] {"GETEX", k, "EX", ttl()};
          default -> new String[] {"GETEX", k, "PERSIST"};
        };
      }
      if (pick < 44) {
        return switch (random.nextInt(9)) {
          case 6 -> concat(new String[] {"PFADD", k}, elements(random.nextInt(12)));
          case 7 -> new String[] {"PFCOUNT", k, key()};
          case 8 ->
              random.nextBoolean()
                  ? new String[] {"PFCOUNT", k}
                  : new String[] {"PFMERGE", k, key(), key()};
          case 0 ->
              new String[] {"SETBIT", k, Integer.toString(random.nextInt(64)), pickOf("0", "1")};
          case 1 -> new String[] {"GETBIT", k, Integer.toString(random.nextInt(64))};
          case 2 -> new String[] {"BITCOUNT", k};
          case 3 -> new String[] {"BITPOS", k, pickOf("0", "1")};
          case 4 -> new String[] {"BITOP", pickOf("AND", "OR", "XOR"), k, key(), key()};
          default -> new String[] {"LCS", k, key()};
        };
      }
      if (pick < 47) {
        return new String[] {"DBSIZE"};
      }
      if (pick < 49) {
        return new String[] {"KEYS", "k*"};
      }
      if (pick < 57) {
        return transaction(k);
      }
      if (pick < 65) {
        return script(k);
      }
      if (pick < 69) {
        return switch (random.nextInt(3)) {
          case 0 -> new String[] {"FCALL", "bump", "1", k, number()};
          case 1 -> new String[] {"FCALL_RO", "peek", "1", k};
          default -> new String[] {"FCALL_RO", "bump", "1", k, "1"};
        };
      }
      if (pick < 80) {
        return hash(k);
      }
      if (pick < 88) {
        return list(k);
      }
      if (pick < 92) {
        return set(k);
      }
      if (pick < 93) {
        return switch (random.nextInt(6)) {
          case 0 -> new String[] {"SORT", k};
          case 1 -> new String[] {"SORT", k, "ALPHA", "DESC"};
          case 2 -> new String[] {"SORT", k, "ALPHA", "LIMIT", "1", "2"};
          case 3 -> new String[] {"SORT", k, "BY", "k*", "ALPHA"};
          case 4 -> new String[] {"SORT_RO", k, "ALPHA", "GET", "#", "GET", "k*"};
          default -> new String[] {"SORT", k, "ALPHA", "STORE", key()};
        };
      }
      if (pick < 97) {
        return zset(k);
      }
      return stream(k);
    }

    private String streamId() {
      return pickOf("1-1", "1-2", "2", "3-*", "5-0", "0-0", "x", "18446744073709551615-1", "7");
    }

    /** Stream commands with ids given: an XADD with '*' would take each server's clock. */
    private String[] stream(String k) {
      if (random.nextInt(3) == 0) {
        return group(k);
      }
      return switch (random.nextInt(12)) {
        case 0, 1, 2 -> new String[] {"XADD", k, streamId(), "f", value()};
        case 3 -> new String[] {"XADD", k, "MAXLEN", "=", "2", streamId(), "f", value()};
        case 4 -> new String[] {"XLEN", k};
        case 5 -> new String[] {"XRANGE", k, "-", "+"};
        case 6 -> new String[] {"XREVRANGE", k, "+", "-", "COUNT", "2"};
        case 7 -> new String[] {"XRANGE", k, pickOf("(1-1", "2", "-"), pickOf("+", "5", "(5-0")};
        case 8 -> new String[] {"XDEL", k, streamId(), streamId()};
        case 9 ->
            new String[] {"XTRIM", k, pickOf("MAXLEN", "MINID"), "=", pickOf("1", "2-0", "3")};
        case 10 -> new String[] {"XREAD", "COUNT", "2", "STREAMS", k, pickOf("0", "1-1", "$")};
        default -> new String[] {"XADD", k, "NOMKSTREAM", streamId(), "f", value()};
      };
    }

    private String score() {
      return pickOf("1", "2.5", "-3", "0", "inf", "-inf", "1e20", "0.1", "x", "(1");
    }

    private String bound() {
      return pickOf("-inf", "+inf", "0", "(1", "2.5", "(2.5", "x", "5");
    }

    private String lexBound() {
      return pickOf("-", "+", "[a", "(b", "[c", "x");
    }

    private String[] zset(String k) {
      return switch (random.nextInt(28)) {
        // GEO over the same keys: points near Sicily, and whatever scores ZADD left. Neither
        // COUNT (Redis's partial qsort orders equal distances its own way) nor STOREDIST (the
        // JVM's sine is not glibc's in the last bit) is generated: docs/server.md.
        case 23 ->
            new String[] {
              "GEOADD", k, longitude(), latitude(), member(), longitude(), latitude(), member()
            };
        case 24 ->
            switch (random.nextInt(3)) {
              case 0 -> new String[] {"GEOPOS", k, member(), member()};
              case 1 -> new String[] {"GEOHASH", k, member(), member()};
              default -> new String[] {"GEODIST", k, member(), member(), pickOf("m", "km", "mi")};
            };
        case 25 ->
            new String[] {
              "GEOSEARCH",
              k,
              "FROMLONLAT",
              longitude(),
              latitude(),
              "BYRADIUS",
              pickOf("10", "100", "500"),
              "km",
              pickOf("WITHDIST", "WITHCOORD", "WITHHASH", "ASC", "DESC")
            };
        case 26 ->
            random.nextBoolean()
                ? new String[] {
                  "GEORADIUSBYMEMBER", k, member(), pickOf("50", "300"), "km", "WITHDIST", "DESC"
                }
                : new String[] {
                  "GEOSEARCHSTORE", key(), k, "FROMMEMBER", member(), "BYBOX", "400", "300", "km"
                };
        case 0, 1 -> new String[] {"ZADD", k, score(), member(), score(), member()};
        // Sorted sets past Cellar's packed form: more than 128 members, a member over 64 bytes.
        case 2 ->
            random.nextInt(3) == 0
                ? manyScored(k)
                : new String[] {"ZADD", k, score(), "w".repeat(random.nextInt(100))};
        case 3 -> new String[] {"ZADD", k, pickOf("NX", "XX", "GT", "LT", "CH"), score(), member()};
        case 4 -> new String[] {"ZADD", k, "INCR", score(), member()};
        case 5 -> new String[] {"ZINCRBY", k, score(), member()};
        case 6 -> new String[] {"ZREM", k, member(), member()};
        case 7 -> new String[] {"ZSCORE", k, member()};
        case 8 -> new String[] {"ZCARD", k};
        case 9 -> new String[] {"ZRANGE", k, number(), number(), "WITHSCORES"};
        case 10 -> new String[] {"ZRANGE", k, "0", "-1", pickOf("REV", "WITHSCORES")};
        case 11 -> new String[] {"ZRANGEBYSCORE", k, bound(), bound(), "WITHSCORES"};
        case 12 -> new String[] {"ZREVRANGEBYSCORE", k, bound(), bound(), "LIMIT", "1", "2"};
        case 13 -> new String[] {"ZRANGE", k, lexBound(), lexBound(), "BYLEX"};
        case 14 -> new String[] {"ZCOUNT", k, bound(), bound()};
        case 15 -> new String[] {pickOf("ZRANK", "ZREVRANK"), k, member()};
        case 16 -> new String[] {pickOf("ZPOPMIN", "ZPOPMAX"), k};
        case 17 -> new String[] {pickOf("ZPOPMIN", "ZPOPMAX"), k, "2"};
        case 18 -> new String[] {"ZREMRANGEBYSCORE", k, bound(), bound()};
        case 19 -> new String[] {"ZREMRANGEBYRANK", k, number(), number()};
        case 20 ->
            new String[] {pickOf("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), k, "2", key(), key()};
        case 21 -> new String[] {pickOf("ZUNION", "ZINTER", "ZDIFF"), "2", k, key(), "WITHSCORES"};
        case 22 -> new String[] {"ZMSCORE", k, member(), member()};
        default -> new String[] {"ZLEXCOUNT", k, lexBound(), lexBound()};
      };
    }

    private String longitude() {
      return String.format(java.util.Locale.ROOT, "%.6f", 12.5 + random.nextDouble() * 3);
    }

    private String latitude() {
      return random.nextInt(30) == 0
          ? "86"
          : String.format(java.util.Locale.ROOT, "%.6f", 36.5 + random.nextDouble() * 2);
    }

    private String field() {
      return "f" + random.nextInt(6);
    }

    private String[] hash(String k) {
      return switch (random.nextInt(16)) {
        case 0 -> new String[] {"HSET", k, field(), value(), field(), value()};
        // Hashes past Cellar's packed form: more than 128 fields, a value over 64 bytes.
        case 1 ->
            random.nextInt(4) == 0
                ? many("HSET", k, true)
                : new String[] {"HSET", k, field(), "z".repeat(random.nextInt(100))};
        case 2 -> new String[] {"HGET", k, field()};
        case 3 -> new String[] {"HMGET", k, field(), field(), field()};
        case 4 -> new String[] {"HDEL", k, field(), field()};
        case 5 -> new String[] {"HLEN", k};
        case 6 -> new String[] {"HEXISTS", k, field()};
        case 7 -> new String[] {"HGETALL", k};
        case 8 -> new String[] {"HKEYS", k};
        case 9 -> new String[] {"HVALS", k};
        case 10 -> new String[] {"HINCRBY", k, field(), number()};
        case 11 -> new String[] {"HINCRBYFLOAT", k, field(), pickOf("1.5", "-0.25", "x")};
        case 12 -> new String[] {"HSETNX", k, field(), value()};
        case 13 -> new String[] {"HSTRLEN", k, field()};
        case 14 -> new String[] {"HMSET", k, field(), value()};
        // A COUNT that covers the hash: Redis pages a hash table in its seeded hash order.
        default -> new String[] {"HSCAN", k, "0", "COUNT", "1000"};
      };
    }

    /** {@code ZADD k} with 20 to 139 scored members, most of them new. */
    private String[] manyScored(String k) {
      List<String> args = new ArrayList<>(List.of("ZADD", k));
      for (int i = 20 + random.nextInt(120); i > 0; i--) {
        args.add(pickOf("1", "2.5", "-3", "0", "inf", "-inf", "1e20", "0.1")); // all valid
        args.add("n" + random.nextInt(400));
      }
      return args.toArray(new String[0]);
    }

    /** {@code command k} with 20 to 139 members (and values, for a hash), most of them new. */
    private String[] many(String command, String k, boolean values) {
      List<String> args = new ArrayList<>(List.of(command, k));
      for (int i = 20 + random.nextInt(120); i > 0; i--) {
        args.add("n" + random.nextInt(400));
        if (values) {
          args.add(value());
        }
      }
      return args.toArray(new String[0]);
    }

    private String[] list(String k) {
      return switch (random.nextInt(20)) {
        case 0, 1 -> new String[] {"RPUSH", k, value(), value()};
        case 2 -> new String[] {"LPUSH", k, value()};
        case 3 -> new String[] {pickOf("LPUSHX", "RPUSHX"), k, value()};
        case 4 -> new String[] {"LPOP", k};
        case 5 -> new String[] {"RPOP", k, Integer.toString(random.nextInt(3))};
        case 6 -> new String[] {"LLEN", k};
        case 7 -> new String[] {"LRANGE", k, number(), number()};
        case 8 -> new String[] {"LRANGE", k, "0", "-1"};
        case 9 -> new String[] {"LINDEX", k, Integer.toString(random.nextInt(8) - 4)};
        case 10 -> new String[] {"LSET", k, Integer.toString(random.nextInt(6) - 3), value()};
        case 11 ->
            new String[] {"LINSERT", k, pickOf("BEFORE", "AFTER", "AROUND"), value(), value()};
        case 12 -> new String[] {"LREM", k, Integer.toString(random.nextInt(5) - 2), value()};
        case 13 -> new String[] {"LTRIM", k, number(), number()};
        case 14 -> new String[] {"LPOS", k, value(), "RANK", pickOf("1", "-1", "2", "0")};
        case 15 ->
            new String[] {
              "LMOVE", k, key(), pickOf("LEFT", "RIGHT"), pickOf("LEFT", "RIGHT", "UP")
            };
        case 16 -> new String[] {"RPOPLPUSH", k, key()};
        // Lists past Cellar's packed form: more than 128 elements, an element over 64 bytes.
        case 17 -> {
          List<String> push = new ArrayList<>(List.of(pickOf("RPUSH", "LPUSH"), k));
          for (int i = 20 + random.nextInt(100); i > 0; i--) {
            push.add(value());
          }
          yield push.toArray(new String[0]);
        }
        case 18 -> new String[] {"RPUSH", k, "y".repeat(50 + random.nextInt(30))};
        default -> new String[] {"LMPOP", "2", k, key(), pickOf("LEFT", "RIGHT"), "COUNT", "2"};
      };
    }

    private String member() {
      return pickOf("a", "b", "c", "1", "2", "");
    }

    private String[] set(String k) {
      return switch (random.nextInt(14)) {
        case 0 -> new String[] {"SADD", k, member(), member()};
        // Sets past Cellar's packed form: more than 128 members, a member over 64 bytes.
        case 1 ->
            random.nextInt(4) == 0
                ? many("SADD", k, false)
                : new String[] {"SADD", k, "m".repeat(random.nextInt(100))};
        case 2 -> new String[] {"SREM", k, member(), member()};
        case 3 -> new String[] {"SISMEMBER", k, member()};
        case 4 -> new String[] {"SMISMEMBER", k, member(), member()};
        case 5 -> new String[] {"SCARD", k};
        case 6 -> new String[] {"SMEMBERS", k};
        case 7 -> new String[] {pickOf("SINTER", "SUNION", "SDIFF"), k, key()};
        case 8 ->
            new String[] {pickOf("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), k, key(), key()};
        case 9 -> new String[] {"SMOVE", k, key(), member()};
        case 10 -> new String[] {"SINTERCARD", "2", k, key()};
        case 11 -> new String[] {"SRANDMEMBER", k, "1000"}; // more than a set here holds: all
        case 12 -> new String[] {"SPOP", k, "1000"};
        // A COUNT that covers the set: Redis pages a hash table in its seeded hash order (a set of
        // 30 with one long member is a table there, and one record here).
        default -> new String[] {"SSCAN", k, "0", "COUNT", "1000"};
      };
    }

    /** Consumer groups: what does not depend on time (XPENDING's idle times, XINFO's ages). */
    private String[] group(String k) {
      String g = pickOf("g1", "g2");
      String c = pickOf("alice", "bob");
      return switch (random.nextInt(9)) {
        case 0 -> new String[] {"XGROUP", "CREATE", k, g, pickOf("0", "$", "1-1"), "MKSTREAM"};
        case 1, 2 ->
            new String[] {
              "XREADGROUP", "GROUP", g, c, "COUNT", "2", "STREAMS", k, pickOf(">", "0")
            };
        case 3 -> new String[] {"XACK", k, g, streamId(), streamId()};
        case 4 -> new String[] {"XPENDING", k, g};
        case 5 -> new String[] {"XCLAIM", k, g, c, "0", streamId(), "JUSTID"};
        case 6 -> new String[] {"XAUTOCLAIM", k, g, c, "0", "0", "COUNT", "5", "JUSTID"};
        case 7 ->
            random.nextBoolean()
                ? new String[] {"XGROUP", "DESTROY", k, g}
                : new String[] {"XGROUP", "DELCONSUMER", k, g, c};
        default -> new String[] {"XGROUP", "CREATECONSUMER", k, g, c};
      };
    }

    private String db() {
      return Integer.toString(random.nextInt(3));
    }

    private String[] database(String k) {
      return switch (random.nextInt(9)) {
        case 0, 1, 2 -> new String[] {"SELECT", db()};
        case 3, 4 -> new String[] {"MOVE", k, db()};
        case 5 -> new String[] {"SWAPDB", db(), db()};
        case 6 -> new String[] {"COPY", k, key(), "DB", db()};
        case 7 -> new String[] {"COPY", k, key(), "DB", db(), "REPLACE"};
        default -> random.nextInt(4) == 0 ? new String[] {"FLUSHDB"} : new String[] {"DBSIZE"};
      };
    }

    private String[] copy(String k) {
      return random.nextBoolean()
          ? new String[] {"COPY", k, key()}
          : new String[] {"COPY", k, key(), "REPLACE"};
    }

    private String[] transaction(String k) {
      return switch (random.nextInt(8)) {
        case 0, 1 -> new String[] {"MULTI"};
        case 2, 3 -> new String[] {"EXEC"};
        case 4 -> new String[] {"DISCARD"};
        case 5 -> new String[] {"WATCH", k, key()};
        case 6 -> new String[] {"UNWATCH"};
        default -> new String[] {"INCR"}; // wrong arity: queued inside MULTI, it dooms the EXEC
      };
    }

    private static final String[] SCRIPTS = {
      "return redis.call('incr', KEYS[1])",
      "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])",
      "return {redis.call('exists', KEYS[1]), redis.pcall('incr', KEYS[1])}",
      "return redis.call('append', KEYS[1], ARGV[1])",
      "local v = redis.call('get', KEYS[1]); if v then return #v else return -1 end",
      "return redis.status_reply('DONE')",
      "return redis.error_reply('MYERR from script')",
      "return cjson.encode({KEYS[1], ARGV[1], 3})",
      "return redis.call('del', KEYS[1])",
      "return tonumber(ARGV[1])",
      "return redis.call('hset', KEYS[1], 'f1', ARGV[1])",
      "return redis.call('rpush', KEYS[1], ARGV[1], ARGV[1])",
      "return redis.call('lrange', KEYS[1], 0, -1)",
      "return redis.pcall('sadd', KEYS[1], ARGV[1])",
      "return redis.call('type', KEYS[1])",
    };

    private String[] script(String k) {
      String body = SCRIPTS[random.nextInt(SCRIPTS.length)];
      return random.nextInt(4) == 0
          ? new String[] {"EVAL_RO", "return redis.call('get', KEYS[1])", "1", k}
          : new String[] {"EVAL", body, "1", k, value()};
    }

    private String pickOf(String... options) {
      return options[random.nextInt(options.length)];
    }
  }
}
