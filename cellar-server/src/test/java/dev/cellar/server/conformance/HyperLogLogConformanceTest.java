package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HyperLogLogs as Redis 7.2 keeps them: the strings themselves, byte for byte (compared by their
 * SHA-1 through a script, the digests taken from redis-server), in the sparse form, after the dense
 * promotion and after merges of both; the counts; the cached count in the header; the errors for
 * other strings, other types and corrupt sketches.
 */
class HyperLogLogConformanceTest extends AbstractConformanceTest {
  private String sha1(String key) throws IOException {
    return c.call("EVAL", "return redis.sha1hex(redis.call('get', KEYS[1]))", "1", key);
  }

  private static String[] add(String key, int from, int to) {
    List<String> args = new ArrayList<>(List.of("PFADD", key));
    for (int i = from; i < to; i++) {
      args.add("e" + i);
    }
    return args.toArray(String[]::new);
  }

  @Test
  void sparseSketchesAreRedisBytes() throws IOException {
    assertEquals(integer(1), c.call("PFADD", "hll", "a", "b", "c", "d", "e", "f", "g"));
    assertEquals(integer(0), c.call("PFADD", "hll", "a", "g"), "nothing new");
    assertEquals(integer(7), c.call("PFCOUNT", "hll"));
    assertEquals(bulk("278ce10ff2008afc83ede4d0f556e586ebecac6a"), sha1("hll"));
    assertEquals(
        bulk(
            "Z:1646 v:1,1 Z:5645 v:1,1 Z:1085 v:2,1 z:57 v:1,1 Z:4274 v:2,1 Z:2445 v:1,1 Z:622"
                + " v:1,1 Z:603"),
        c.call("PFDEBUG", "DECODE", "hll"));
    assertEquals(integer(1), c.call(add("mid", 0, 300)));
    assertEquals(simple("sparse"), c.call("PFDEBUG", "ENCODING", "mid"));
    assertEquals(integer(302), c.call("PFCOUNT", "mid"));
    assertEquals(integer(713), c.call("STRLEN", "mid"));
    assertEquals(bulk("f3f35a3d2b90deb1db146534a80de8537004c99c"), sha1("mid"));
    assertEquals(OK, c.call("PFMERGE", "m", "hll", "mid"));
    assertEquals(simple("sparse"), c.call("PFDEBUG", "ENCODING", "m"));
    assertEquals(integer(309), c.call("PFCOUNT", "m"));
    assertEquals(bulk("96ac95ba33146e4f4b6d8010d20e0f67b1d49ff1"), sha1("m"));
    assertEquals(integer(309), c.call("PFCOUNT", "mid", "hll", "nokey"));
  }

  @Test
  void aSketchPastTheSparseLimitIsDenseAsInRedis() throws IOException {
    c.call("PFADD", "hll", "a", "b", "c", "d", "e", "f", "g");
    assertEquals(integer(1), c.call(add("big", 0, 2000)));
    assertEquals(simple("dense"), c.call("PFDEBUG", "ENCODING", "big"));
    assertEquals(integer(12304), c.call("STRLEN", "big"));
    assertEquals(integer(2000), c.call("PFCOUNT", "big"));
    assertEquals(bulk("683f7fda3b42d2dbc42371094fe33dfcca528e46"), sha1("big"));
    assertEquals(OK, c.call("PFMERGE", "m2", "hll", "big"));
    assertEquals(simple("dense"), c.call("PFDEBUG", "ENCODING", "m2"));
    assertEquals(integer(2008), c.call("PFCOUNT", "m2"));
    assertEquals(bulk("eabe60267bd52a4cde6ed5fe4f9b6fbd55107dc5"), sha1("m2"));
    assertEquals(integer(2008), c.call("PFCOUNT", "hll", "big"));
  }

  @Test
  void theSparseLimitIsASetting() throws IOException {
    try {
      assertEquals(OK, c.call("CONFIG", "SET", "hll-sparse-max-bytes", "30"));
      c.call(add("h", 0, 10));
      assertEquals(simple("dense"), c.call("PFDEBUG", "ENCODING", "h"));
      assertEquals(OK, c.call("CONFIG", "SET", "hll-sparse-max-bytes", "3000"));
      c.call(add("h2", 0, 10));
      assertEquals(simple("sparse"), c.call("PFDEBUG", "ENCODING", "h2"));
      assertEquals(integer(1), c.call("PFDEBUG", "TODENSE", "h2"));
      assertEquals(integer(0), c.call("PFDEBUG", "TODENSE", "h2"));
      assertEquals(c.call("GET", "h"), c.call("GET", "h2"));
    } finally {
      c.call("CONFIG", "SET", "hll-sparse-max-bytes", "3000");
    }
  }

  /** Redis's "PFADD / PFCOUNT cache invalidation works": the header's top bit marks it stale. */
  @Test
  void theCountIsCachedInTheHeaderAndTheTtlKept() throws IOException {
    c.call("PFADD", "hll", "a", "b", "c");
    assertEquals(integer(1), c.call("EXPIRE", "hll", "1000"));
    assertEquals(bulk("\u0080"), c.call("GETRANGE", "hll", "15", "15"));
    assertEquals(integer(3), c.call("PFCOUNT", "hll"));
    assertEquals(bulk("\u0000"), c.call("GETRANGE", "hll", "15", "15"));
    c.call("PFADD", "hll", "a", "b", "c");
    assertEquals(bulk("\u0000"), c.call("GETRANGE", "hll", "15", "15"), "nothing changed");
    c.call("PFADD", "hll", "x");
    assertEquals(bulk("\u0080"), c.call("GETRANGE", "hll", "15", "15"));
    assertTrue(c.call("TTL", "hll").matches(":(1000|99\\d)\r\n"), "PFADD and PFCOUNT keep the TTL");
  }

  @Test
  void otherValuesAndCorruptSketchesAreRefused() throws IOException {
    String notHll = error("WRONGTYPE Key is not a valid HyperLogLog string value.");
    c.call("SET", "s", "hello");
    assertEquals(notHll, c.call("PFADD", "s", "a"));
    assertEquals(notHll, c.call("PFCOUNT", "s"));
    assertEquals(notHll, c.call("PFMERGE", "d", "s"));
    assertEquals(integer(0), c.call("EXISTS", "d"), "a refused merge writes nothing");
    c.call("RPUSH", "l", "x");
    assertEquals(
        error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        c.call("PFADD", "l", "a"));
    c.call("PFADD", "h", "a");
    c.call("SETRANGE", "h", "4", "x");
    assertEquals(notHll, c.call("PFCOUNT", "h"), "an unknown encoding");
    c.call("DEL", "h");
    c.call("PFADD", "h", "a", "b");
    c.call("SETRANGE", "h", "16", "\u0001\u0001\u0001");
    assertEquals(error("INVALIDOBJ Corrupted HLL object detected"), c.call("PFCOUNT", "h"));
    assertEquals(error("ERR The specified key does not exist"), c.call("PFDEBUG", "GETREG", "no"));
    c.call("PFADD", "ok", "a");
    assertEquals(error("ERR Unknown PFDEBUG subcommand 'nope'"), c.call("PFDEBUG", "nope", "ok"));
    assertEquals(integer(1), c.call("PFADD", "empty"), "PFADD with no element creates the key");
    assertEquals(integer(0), c.call("PFADD", "empty"));
    assertEquals(integer(0), c.call("PFCOUNT", "empty"));
  }
}
