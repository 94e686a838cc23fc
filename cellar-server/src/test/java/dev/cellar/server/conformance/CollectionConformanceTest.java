package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Hashes, sets and lists as Redis 7 answers them: replies, errors, types across commands, and the
 * blocking pops with more than one client. The random differential test ({@link DifferentialTest})
 * covers the combinations; these name the cases one by one.
 */
class CollectionConformanceTest extends AbstractConformanceTest {
  static final String WRONGTYPE =
      error("WRONGTYPE Operation against a key holding the wrong kind of value");
  static final String NIL_ARRAY = "*-1\r\n";

  @Test
  void hashCommandsAnswerAsRedisDoes() throws IOException {
    assertEquals(integer(2), c.call("HSET", "h", "a", "1", "b", "2"));
    assertEquals(integer(1), c.call("HSET", "h", "a", "10", "c", "3"));
    assertEquals(bulk("10"), c.call("HGET", "h", "a"));
    assertEquals(NIL, c.call("HGET", "h", "zz"));
    assertEquals(NIL, c.call("HGET", "nohash", "a"));
    assertEquals(integer(3), c.call("HLEN", "h"));
    assertEquals(
        java.util.Arrays.asList("10", "2", null),
        parsedArray(c.call("HMGET", "h", "a", "b", "zz")));
    assertEquals(integer(12), c.call("HINCRBY", "h", "a", "2"));
    assertEquals(integer(1), c.call("HSET", "h", "s", "x"));
    assertEquals(error("ERR hash value is not an integer"), c.call("HINCRBY", "h", "s", "1"));
    assertEquals(bulk("2.5"), c.call("HINCRBYFLOAT", "h", "b", "0.5"));
    assertEquals(integer(0), c.call("HSETNX", "h", "a", "x"));
    assertEquals(integer(1), c.call("HSETNX", "h", "n", "x"));
    assertEquals(integer(2), c.call("HSTRLEN", "h", "a"));
    assertEquals(integer(2), c.call("HDEL", "h", "a", "b", "zz"));
    assertEquals(Set.of("c=3", "s=x", "n=x"), pairs(c.call("HGETALL", "h")), "fields and values");
    assertEquals(simple("hash"), c.call("TYPE", "h"));
    assertEquals(arity("hset"), c.call("HSET", "h", "a"));
    assertEquals(integer(3), c.call("HDEL", "h", "c", "s", "n"));
    assertEquals(integer(0), c.call("EXISTS", "h"), "an emptied hash is deleted");
  }

  @Test
  void everyStringCommandRefusesACollectionAndSetReplacesIt() throws IOException {
    c.call("RPUSH", "l", "x");
    assertEquals(WRONGTYPE, c.call("GET", "l"));
    assertEquals(WRONGTYPE, c.call("APPEND", "l", "x"));
    assertEquals(WRONGTYPE, c.call("INCR", "l"));
    assertEquals(WRONGTYPE, c.call("STRLEN", "l"));
    assertEquals(WRONGTYPE, c.call("GETBIT", "l", "0"));
    assertEquals(WRONGTYPE, c.call("HGET", "l", "f"));
    assertEquals(WRONGTYPE, c.call("SADD", "l", "m"));
    assertEquals("*1\r\n$-1\r\n", c.call("MGET", "l"), "MGET answers nil for other types");
    assertEquals(NIL, c.call("SET", "l", "v", "NX"));
    assertEquals(OK, c.call("SET", "l", "v"));
    assertEquals(bulk("v"), c.call("GET", "l"));
    c.call("SET", "s", "v");
    assertEquals(WRONGTYPE, c.call("LPUSH", "s", "x"));
    assertEquals(WRONGTYPE, c.call("LRANGE", "s", "0", "-1"));
  }

  @Test
  void listsPushPopRangeAndEdit() throws IOException {
    assertEquals(integer(3), c.call("RPUSH", "l", "a", "b", "c"));
    assertEquals(integer(5), c.call("LPUSH", "l", "y", "z"));
    assertEquals(array("z", "y", "a", "b", "c"), c.call("LRANGE", "l", "0", "-1"));
    assertEquals(array("b", "c"), c.call("LRANGE", "l", "-2", "100"));
    assertEquals(array(), c.call("LRANGE", "l", "5", "10"));
    assertEquals(bulk("z"), c.call("LPOP", "l"));
    assertEquals(array("c", "b"), c.call("RPOP", "l", "2"));
    assertEquals(integer(3), c.call("LINSERT", "l", "BEFORE", "a", "x"));
    assertEquals(integer(-1), c.call("LINSERT", "l", "AFTER", "nope", "x"));
    assertEquals(array("y", "x", "a"), c.call("LRANGE", "l", "0", "-1"));
    assertEquals(OK, c.call("LSET", "l", "-1", "A"));
    assertEquals(error("ERR index out of range"), c.call("LSET", "l", "9", "A"));
    assertEquals(error("ERR no such key"), c.call("LSET", "nolist", "0", "A"));
    assertEquals(integer(1), c.call("LPOS", "l", "x"));
    assertEquals(integer(1), c.call("LREM", "l", "0", "x"));
    assertEquals(OK, c.call("LTRIM", "l", "1", "-1"));
    assertEquals(array("A"), c.call("LRANGE", "l", "0", "-1"));
    assertEquals(bulk("A"), c.call("LMOVE", "l", "m", "LEFT", "RIGHT"));
    assertEquals(integer(0), c.call("EXISTS", "l"));
    assertEquals(simple("list"), c.call("TYPE", "m"));
    assertEquals(NIL_ARRAY, c.call("LMPOP", "1", "nolist", "LEFT"));
    assertEquals(
        "*2\r\n$1\r\nm\r\n*1\r\n$1\r\nA\r\n",
        c.call("LMPOP", "2", "nolist", "m", "LEFT", "COUNT", "5"));
  }

  @Test
  void setsAddRemoveAndCombine() throws IOException {
    assertEquals(integer(3), c.call("SADD", "s1", "a", "b", "c"));
    assertEquals(integer(0), c.call("SADD", "s1", "a"));
    assertEquals(integer(2), c.call("SADD", "s2", "b", "d"));
    assertEquals(integer(1), c.call("SISMEMBER", "s1", "a"));
    assertEquals("*2\r\n:1\r\n:0\r\n", c.call("SMISMEMBER", "s1", "a", "z"));
    assertEquals(Set.of("b"), members(c.call("SINTER", "s1", "s2")));
    assertEquals(Set.of("a", "b", "c", "d"), members(c.call("SUNION", "s1", "s2")));
    assertEquals(Set.of("a", "c"), members(c.call("SDIFF", "s1", "s2")));
    assertEquals(integer(4), c.call("SUNIONSTORE", "u", "s1", "s2"));
    assertEquals(integer(1), c.call("SINTERCARD", "2", "s1", "s2"));
    assertEquals(integer(1), c.call("SMOVE", "s1", "s2", "a"));
    assertEquals(integer(2), c.call("SCARD", "s1"));
    assertEquals(integer(0), c.call("SINTERSTORE", "u", "s1", "nosuch"));
    assertEquals(integer(0), c.call("EXISTS", "u"), "an empty result deletes the destination");
    assertEquals(Set.of("b", "c"), members(c.call("SPOP", "s1", "10")));
    assertEquals(integer(0), c.call("EXISTS", "s1"));
  }

  @Test
  void sortedSetsOrderByScoreThenMember() throws IOException {
    assertEquals(integer(4), c.call("ZADD", "z", "1", "a", "2", "b", "2", "c", "0.5", "d"));
    assertEquals(array("d", "a", "b", "c"), c.call("ZRANGE", "z", "0", "-1"));
    assertEquals(array("c", "2", "b", "2"), c.call("ZRANGE", "z", "0", "1", "REV", "WITHSCORES"));
    assertEquals(array("a", "b"), c.call("ZRANGEBYSCORE", "z", "(0.5", "2", "LIMIT", "0", "2"));
    assertEquals(integer(2), c.call("ZRANK", "z", "b"));
    assertEquals(integer(1), c.call("ZREVRANK", "z", "b"));
    assertEquals(bulk("0.099999999999999978"), c.call("ZINCRBY", "z", "-0.4", "d"));
    assertEquals(integer(0), c.call("ZADD", "z", "XX", "CH", "2", "c"));
    assertEquals(integer(1), c.call("ZADD", "z", "GT", "CH", "3", "c"));
    assertEquals(NIL, c.call("ZADD", "z", "NX", "INCR", "1", "c"));
    assertEquals(integer(2), c.call("ZCOUNT", "z", "1", "(3"));
    assertEquals(array("d", "0.099999999999999978"), c.call("ZPOPMIN", "z"));
    assertEquals(array("c", "3", "b", "2"), c.call("ZPOPMAX", "z", "2"));
    assertEquals(error("ERR value is not a valid float"), c.call("ZADD", "z", "x", "m"));
    assertEquals(error("ERR min or max is not a float"), c.call("ZCOUNT", "z", "x", "1"));
    c.call("ZADD", "lex", "0", "a", "0", "b", "0", "c");
    assertEquals(array("b", "c"), c.call("ZRANGEBYLEX", "lex", "(a", "+"));
    assertEquals(integer(2), c.call("ZLEXCOUNT", "lex", "[a", "[b"));
    assertEquals(integer(3), c.call("ZUNIONSTORE", "u", "2", "lex", "z", "WEIGHTS", "2", "1"));
    assertEquals(
        array("b", "0", "c", "0", "a", "1"), c.call("ZRANGE", "u", "0", "-1", "WITHSCORES"));
    assertEquals(simple("zset"), c.call("TYPE", "u"));
    assertEquals(integer(1), c.call("ZREMRANGEBYRANK", "lex", "0", "0"));
    assertEquals(integer(2), c.call("ZCARD", "lex"));
  }

  @Test
  void aBlockedZpopminIsServedByZadd() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("BZPOPMIN", "zq", "5");
      waitForBlocked(1);
      c.call("ZADD", "zq", "7", "job");
      assertEquals(array("zq", "job", "7"), waiter.readReply());
    }
  }

  /**
   * A blocked pop is served only from a key of its type: a key that became a string in the meantime
   * does not wake it with an error (Redis's "BZPOPMIN, ZADD + DEL + SET should not awake blocked
   * client"), and another of its keys still serves it.
   */
  @Test
  void aBlockedPopWaitsThroughAKeyOfAnotherType() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("BZPOPMIN", "zq", "0");
      waitForBlocked(1);
      c.call("MULTI");
      c.call("ZADD", "zq", "0", "foo");
      c.call("DEL", "zq");
      c.call("SET", "zq", "foo");
      c.call("EXEC");
      c.call("DEL", "zq");
      c.call("ZADD", "zq", "1", "bar");
      assertEquals(array("zq", "bar", "1"), waiter.readReply());
    }
    try (RawClient waiter = server.connect()) {
      waiter.send("BLPOP", "la", "lb", "0");
      waitForBlocked(1);
      c.call("MULTI");
      c.call("RPUSH", "la", "x");
      c.call("DEL", "la");
      c.call("SET", "la", "s");
      c.call("EXEC");
      c.call("RPUSH", "lb", "y");
      assertEquals(array("lb", "y"), waiter.readReply());
    }
  }

  @Test
  void streamsAppendReadDeleteAndTrim() throws IOException {
    assertEquals(bulk("1-1"), c.call("XADD", "s", "1-1", "a", "1"));
    assertEquals(bulk("1-2"), c.call("XADD", "s", "1-*", "b", "2"));
    assertEquals(bulk("5-0"), c.call("XADD", "s", "5", "c", "3"));
    assertEquals(
        error("ERR The ID specified in XADD is equal or smaller than the target stream top item"),
        c.call("XADD", "s", "4-0", "d", "4"));
    assertEquals(integer(3), c.call("XLEN", "s"));
    assertEquals(
        "*2\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n"
            + "*2\r\n$3\r\n5-0\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n",
        c.call("XRANGE", "s", "(1-1", "+"));
    assertEquals(integer(1), c.call("XDEL", "s", "1-2", "9-9"));
    assertEquals(integer(1), c.call("XTRIM", "s", "MAXLEN", "=", "1"));
    assertEquals(
        "*1\r\n*2\r\n$3\r\n5-0\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n",
        c.call("XREVRANGE", "s", "+", "-"));
    assertEquals(integer(1), c.call("XTRIM", "s", "MAXLEN", "0"));
    assertEquals(integer(0), c.call("XLEN", "s"));
    assertEquals(simple("stream"), c.call("TYPE", "s"), "an emptied stream stays");
  }

  @Test
  void aBlockedXreadIsServedByXadd() throws Exception {
    c.call("XADD", "events", "1-1", "old", "x");
    try (RawClient waiter = server.connect()) {
      waiter.send("XREAD", "BLOCK", "5000", "STREAMS", "events", "$");
      waitForBlocked(1);
      c.call("XADD", "events", "2-1", "new", "y");
      assertEquals(
          "*1\r\n*2\r\n$6\r\nevents\r\n*1\r\n*2\r\n$3\r\n2-1\r\n"
              + "*2\r\n$3\r\nnew\r\n$1\r\ny\r\n",
          waiter.readReply());
    }
    assertEquals(NIL_ARRAY, c.call("XREAD", "BLOCK", "100", "STREAMS", "events", "$"));
  }

  @Test
  void consumerGroupsDeliverAcknowledgeAndClaim() throws IOException {
    c.call("XADD", "s", "1-1", "a", "1");
    c.call("XADD", "s", "2-1", "b", "2");
    assertEquals(OK, c.call("XGROUP", "CREATE", "s", "g", "0"));
    assertEquals(
        error("BUSYGROUP Consumer Group name already exists"),
        c.call("XGROUP", "CREATE", "s", "g", "0"));
    String first = c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">");
    assertTrue(first.contains("1-1") && !first.contains("2-1"), first);
    assertEquals(
        "*4\r\n:1\r\n$3\r\n1-1\r\n$3\r\n1-1\r\n*1\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n",
        c.call("XPENDING", "s", "g"));
    assertEquals(array("1-1"), c.call("XCLAIM", "s", "g", "bob", "0", "1-1", "JUSTID"));
    assertEquals(integer(1), c.call("XACK", "s", "g", "1-1", "9-9"));
    assertEquals("*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n", c.call("XPENDING", "s", "g"));
    assertEquals(
        error("NOGROUP No such key 's' or consumer group 'nope' in XREADGROUP with GROUP option"),
        c.call("XREADGROUP", "GROUP", "nope", "x", "STREAMS", "s", ">"));
    assertEquals(
        error("NOGROUP No such consumer group 'nope' for key name 's'"),
        c.call("XGROUP", "CREATECONSUMER", "s", "nope", "carol"));
    assertEquals(integer(1), c.call("XGROUP", "DESTROY", "s", "g"));
  }

  /** COPY of a stream copies its consumer groups, their pending entries and consumers. */
  @Test
  void copyOfAStreamKeepsItsGroups() throws IOException {
    c.call("XADD", "src", "1-1", "a", "1");
    c.call("XADD", "src", "2-1", "b", "2");
    c.call("XGROUP", "CREATE", "src", "g", "0");
    c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "src", ">");
    assertEquals(integer(1), c.call("COPY", "src", "dst"));
    assertEquals(c.call("XRANGE", "src", "-", "+"), c.call("XRANGE", "dst", "-", "+"));
    assertEquals(c.call("XINFO", "GROUPS", "src"), c.call("XINFO", "GROUPS", "dst"));
    assertEquals(c.call("XPENDING", "src", "g"), c.call("XPENDING", "dst", "g"));
    assertTrue(c.call("XPENDING", "dst", "g").startsWith("*4\r\n:1\r\n"));
    String next = c.call("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "dst", ">");
    assertTrue(next.contains("2-1") && !next.contains("1-1"), next);
    assertEquals(integer(1), c.call("XACK", "dst", "g", "1-1"));
    assertTrue(
        c.call("XPENDING", "src", "g").startsWith("*4\r\n:1\r\n"), "the original's PEL stays");
  }

  @Test
  void aBlockedXreadgroupIsServedByXadd() throws Exception {
    c.call("XGROUP", "CREATE", "jobs", "workers", "$", "MKSTREAM");
    try (RawClient waiter = server.connect()) {
      waiter.send("XREADGROUP", "GROUP", "workers", "w1", "BLOCK", "5000", "STREAMS", "jobs", ">");
      waitForBlocked(1);
      c.call("XADD", "jobs", "5-1", "job", "x");
      String reply = waiter.readReply();
      assertTrue(reply.contains("5-1") && reply.contains("job"), reply);
    }
    assertTrue(c.call("XPENDING", "jobs", "workers").startsWith("*4\r\n:1\r\n"));
  }

  @Test
  void expiryRenameAndCopyWorkOnCollections() throws IOException {
    c.call("HSET", "h", "f", "v");
    assertEquals(integer(1), c.call("EXPIRE", "h", "100"));
    assertTrue(c.call("TTL", "h").startsWith(":"));
    assertEquals(OK, c.call("RENAME", "h", "h2"));
    assertEquals(bulk("v"), c.call("HGET", "h2", "f"));
    assertEquals(integer(1), c.call("PERSIST", "h2"));
    assertEquals(integer(1), c.call("COPY", "h2", "h3"));
    assertEquals(integer(1), c.call("HSET", "h3", "g", "w"));
    assertEquals(integer(1), c.call("HLEN", "h2"), "a copy is its own collection");
    assertEquals(integer(1), c.call("DEL", "h2"));
    assertEquals(integer(0), c.call("HLEN", "h2"));
    assertEquals(integer(2), c.call("HLEN", "h3"));
    c.call("HSET", "h4", "f", "v");
    assertEquals(OK, c.call("RENAME", "h3", "h4"), "renaming over a collection replaces it");
    assertEquals(integer(2), c.call("HLEN", "h4"));
  }

  @Test
  void aBlockedPopIsServedByAnotherClientsPush() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("BLPOP", "q1", "q2", "5");
      waitForBlocked(1);
      assertEquals(integer(1), c.call("RPUSH", "q2", "job"));
      assertEquals(array("q2", "job"), waiter.readReply());
      assertEquals(integer(0), c.call("EXISTS", "q2"), "the element went to the waiter");
    }
  }

  @Test
  void requestsPipelinedBehindABlockedPopWaitForIt() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.sendRaw(
          RawClient.command("BRPOP", "q", "5")
              + RawClient.command("SET", "after", "1")
              + RawClient.command("GET", "after"));
      waitForBlocked(1);
      assertEquals(NIL, c.call("GET", "after"), "the SET behind the BRPOP has not run");
      c.call("LPUSH", "q", "x");
      assertEquals(array("q", "x"), waiter.readReply());
      assertEquals(OK, waiter.readReply());
      assertEquals(bulk("1"), waiter.readReply());
    }
  }

  @Test
  void oneElementServesOneWaiterAndTheNextServesTheOther() throws Exception {
    try (RawClient w1 = server.connect();
        RawClient w2 = server.connect()) {
      w1.send("BLPOP", "q", "5");
      w2.send("BLPOP", "q", "5");
      waitForBlocked(2);
      c.call("RPUSH", "q", "one");
      waitForBlocked(1);
      c.call("RPUSH", "q", "two");
      Set<String> got = new TreeSet<>();
      got.add(w1.readReply());
      got.add(w2.readReply());
      assertEquals(new TreeSet<>(List.of(array("q", "one"), array("q", "two"))), got);
    }
  }

  @Test
  void aBlockedPopTimesOutWithNil() throws Exception {
    long start = System.nanoTime();
    assertEquals(NIL_ARRAY, c.call("BLPOP", "never", "0.2"));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms >= 150, "answered after " + ms + " ms");
    assertEquals(NIL_ARRAY, c.call("BLMOVE", "never", "x", "LEFT", "LEFT", "0.1"));
    assertEquals(error("ERR timeout is negative"), c.call("BLPOP", "q", "-1"));
    assertEquals(error("ERR timeout is not a float or out of range"), c.call("BLPOP", "q", "x"));
  }

  @Test
  void insideATransactionNothingBlocks() throws IOException {
    c.call("MULTI");
    c.call("BLPOP", "empty", "0");
    c.call("BLMOVE", "empty", "x", "LEFT", "LEFT", "0");
    assertEquals("*2\r\n*-1\r\n$-1\r\n", c.call("EXEC"));
  }

  @Test
  void aPushInsideATransactionServesTheWaiterOnceCommitted() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "5");
      waitForBlocked(1);
      c.call("MULTI");
      c.call("RPUSH", "src", "a", "b");
      c.call("EXEC");
      assertEquals(bulk("b"), waiter.readReply());
      assertEquals(array("a"), c.call("LRANGE", "src", "0", "-1"));
      assertEquals(array("b"), c.call("LRANGE", "dst", "0", "-1"));
    }
  }

  @Test
  void aClientThatLeavesWhileBlockedTakesNothing() throws Exception {
    RawClient waiter = server.connect();
    waiter.send("BLPOP", "q", "0");
    waitForBlocked(1);
    waiter.close();
    waitForBlocked(0);
    c.call("RPUSH", "q", "kept");
    assertEquals(integer(1), c.call("LLEN", "q"));
  }

  /** Waits until INFO says {@code n} clients are blocked. */
  private static Set<String> members(String reply) {
    Object parsed = RawClient.parse(reply);
    Set<String> out = new TreeSet<>();
    for (Object o : (List<?>) parsed) {
      out.add(String.valueOf(o));
    }
    return out;
  }

  /**
   * The counts of the random draws are checked as Redis checks them, before the key: -2^63 is out
   * of range, and so is anything past half the range when each draw answers twice. A count that
   * large once ran the draws for minutes on the connection's event loop.
   */
  @Test
  void randomDrawsRefuseCountsOutOfRangeAtOnce() throws IOException {
    c.call("HSET", "h", "a", "1");
    c.call("SADD", "s", "a");
    c.call("ZADD", "z", "1", "a");
    c.call("SET", "str", "x");
    String outOfRange = error("ERR value is out of range");
    String notLong =
        error(
            "ERR value is out of range, value must between -9223372036854775807 and"
                + " 9223372036854775807");
    String min = Long.toString(Long.MIN_VALUE);
    String pastHalf = "-9223372036854770000";
    assertEquals(notLong, c.call("HRANDFIELD", "h", min));
    assertEquals(notLong, c.call("HRANDFIELD", "h", min, "WITHVALUES"));
    assertEquals(outOfRange, c.call("HRANDFIELD", "h", pastHalf, "WITHVALUES"));
    assertEquals(outOfRange, c.call("HRANDFIELD", "h", "9223372036854770000", "WITHVALUES"));
    assertEquals(notLong, c.call("HRANDFIELD", "str", min), "before the key's type");
    assertEquals(notLong, c.call("SRANDMEMBER", "s", min));
    assertEquals(notLong, c.call("SRANDMEMBER", "str", min));
    assertEquals(notLong, c.call("ZRANDMEMBER", "z", min));
    assertEquals(outOfRange, c.call("ZRANDMEMBER", "z", pastHalf, "WITHSCORES"));
    assertEquals(
        error("ERR value is not an integer or out of range"),
        c.call("HRANDFIELD", "str", "x", "y"));
    assertEquals(array("a", "a", "a"), c.call("SRANDMEMBER", "s", "-3"));
    assertEquals(array("a", "1", "a", "1"), c.call("HRANDFIELD", "h", "-2", "WITHVALUES"));
    assertEquals(simple("PONG"), c.call("PING"));
  }

  /** Argument errors found by Redis's own test suite, and scores at a double's limits. */
  @Test
  void argumentErrorsAndScoreLimitsAsRedisGivesThem() throws IOException {
    assertEquals(arity("lpop"), c.call("LPOP", "k", "1", "1"));
    assertEquals(arity("rpop"), c.call("RPOP", "k", "2", "2"));
    assertEquals(error("ERR syntax error"), c.call("SPOP", "k", "1", "1"));
    assertEquals(error("ERR syntax error"), c.call("ZPOPMIN", "k", "1", "1"));
    String numkeys = error("ERR numkeys should be greater than 0");
    assertEquals(numkeys, c.call("SINTERCARD", "0", "k"));
    assertEquals(numkeys, c.call("SINTERCARD", "a", "k"));
    assertEquals(
        error("ERR at least 1 input key is needed for 'zintercard' command"),
        c.call("ZINTERCARD", "0", "k"));
    assertEquals(error("ERR syntax error"), c.call("ZINTERCARD", "2", "k"));

    String dblMax = new java.math.BigDecimal(Double.MAX_VALUE).toBigInteger().toString();
    assertEquals(integer(1), c.call("ZADD", "zz", dblMax, "dblmax"));
    assertEquals(bulk("1.7976931348623157e+308"), c.call("ZSCORE", "zz", "dblmax"));
    String notFloat = error("ERR value is not a valid float");
    assertEquals(notFloat, c.call("ZADD", "zz", "1e400", "a"));
    assertEquals(notFloat, c.call("ZADD", "zz", "-1e-400", "a"));
    assertEquals(notFloat, c.call("ZINCRBY", "zz", "1e400", "a"));
    assertEquals(integer(1), c.call("ZADD", "zz", "0e500", "zero"));
    assertEquals(integer(2), c.call("ZCOUNT", "zz", "-1e999", "1e999"), "bounds may overflow");
  }

  private static Set<String> pairs(String reply) {
    List<?> list = (List<?>) RawClient.parse(reply);
    Set<String> out = new TreeSet<>();
    for (int i = 0; i + 1 < list.size(); i += 2) {
      out.add(list.get(i) + "=" + list.get(i + 1));
    }
    return out;
  }

  private static List<String> parsedArray(String reply) {
    List<String> out = new java.util.ArrayList<>();
    for (Object o : (List<?>) RawClient.parse(reply)) {
      out.add(o == null ? null : String.valueOf(o));
    }
    return out;
  }

  /** XAUTOCLAIM's COUNT is bounded as Redis bounds it (LONG_MAX / 16). */
  @Test
  void xautoclaimCountBound() throws IOException {
    c.call("XADD", "x", "1-0", "f", "v");
    c.call("XGROUP", "CREATE", "x", "grp", "0");
    String tooBig = error("ERR COUNT must be > 0");
    assertEquals(
        tooBig,
        c.call("XAUTOCLAIM", "x", "grp", "Bob", "0", "3-0", "COUNT", "8070450532247928833"));
    assertEquals(
        tooBig, c.call("XAUTOCLAIM", "x", "grp", "Bob", "0", "3-0", "COUNT", "576460752303423488"));
    assertEquals(tooBig, c.call("XAUTOCLAIM", "x", "grp", "Bob", "0", "3-0", "COUNT", "0"));
    assertEquals(
        "*3\r\n$3\r\n0-0\r\n*0\r\n*0\r\n",
        c.call("XAUTOCLAIM", "x", "grp", "Bob", "0", "3-0", "COUNT", "1000"));
  }

  /** SORT BY nosort of a sorted set keeps its order (reversed by DESC), in scripts too. */
  @Test
  void sortBySomethingConstantKeepsASortedSetsOrder() throws IOException {
    c.call("ZADD", "zset", "1", "a", "5", "b", "2", "c", "10", "d", "3", "e");
    assertEquals(array("a", "c", "e", "b", "d"), c.call("SORT", "zset", "BY", "nosort", "ASC"));
    assertEquals(array("d", "b", "e", "c", "a"), c.call("SORT", "zset", "BY", "nosort", "DESC"));
    assertEquals(
        array("d", "b"), c.call("SORT", "zset", "BY", "nosort", "DESC", "LIMIT", "0", "2"));
    assertEquals(array(), c.call("SORT", "zset", "BY", "nosort", "LIMIT", "5", "10"));
    assertEquals(
        array("a", "c", "e", "b", "d"),
        c.call("SORT", "zset", "BY", "nosort", "LIMIT", "-10", "100"));
    assertEquals(
        "*2\r\n*5\r\n$1\r\na\r\n$1\r\nc\r\n$1\r\ne\r\n$1\r\nb\r\n$1\r\nd\r\n"
            + "*5\r\n$1\r\nd\r\n$1\r\nb\r\n$1\r\ne\r\n$1\r\nc\r\n$1\r\na\r\n",
        c.call(
            "EVAL",
            "return {redis.call('sort',KEYS[1],'by','nosort','asc'),"
                + " redis.call('sort',KEYS[1],'by','nosort','desc')}",
            "1",
            "zset"));
    c.call("SADD", "set", "b", "c", "a");
    assertEquals(
        "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n",
        c.call("EVAL", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "set"),
        "a set unsorted in a script is sorted as strings, so that its order is one");
  }
}
