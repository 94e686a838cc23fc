package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Bitmaps and the rest of the string family: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD
 * BITFIELD_RO LCS and SETRANGE's limits, with Redis's replies and errors. Besides the fixed cases,
 * a seeded random walk runs the same commands on random values here and against {@code
 * redis-server} (with {@code -Dconformance.target=redis}), so both must print the same totals.
 */
class BitmapConformanceTest extends AbstractConformanceTest {
  private static final String BIT_OFFSET =
      error("ERR bit offset is not an integer or out of range");

  @Test
  void setbitAndGetbitGrowTheValueAndReturnTheOldBit() throws IOException {
    assertEquals(integer(0), c.call("SETBIT", "b", "7", "1"));
    assertEquals(bulk("\u0001"), c.call("GET", "b"));
    assertEquals(integer(1), c.call("SETBIT", "b", "7", "0"));
    assertEquals(integer(0), c.call("SETBIT", "b", "0", "1"));
    assertEquals(integer(1), c.call("GETBIT", "b", "0"));
    assertEquals(integer(0), c.call("GETBIT", "b", "1"));
    assertEquals(integer(0), c.call("GETBIT", "b", "100000"));
    assertEquals(integer(0), c.call("GETBIT", "missing", "3"));
    assertEquals(integer(0), c.call("SETBIT", "b", "23", "1"));
    assertEquals(integer(3), c.call("STRLEN", "b"));
    assertEquals(
        error("ERR bit is not an integer or out of range"), c.call("SETBIT", "b", "1", "2"));
    assertEquals(
        error("ERR bit is not an integer or out of range"), c.call("SETBIT", "b", "1", "x"));
    assertEquals(BIT_OFFSET, c.call("SETBIT", "b", "-1", "1"));
    assertEquals(BIT_OFFSET, c.call("GETBIT", "b", "x"));
    assertEquals(BIT_OFFSET, c.call("SETBIT", "b", "4294967296000", "1"));
    assertEquals(arity("setbit"), c.call("SETBIT", "b", "1"));
    // The TTL is kept.
    c.call("SET", "t", "a", "EX", "100");
    c.call("SETBIT", "t", "15", "1");
    assertEquals(integer(100), c.call("TTL", "t"));
  }

  @Test
  void bitcountCountsWholeValuesAndRangesInBytesOrBits() throws IOException {
    c.call("SET", "s", "foobar");
    assertEquals(integer(26), c.call("BITCOUNT", "s"));
    assertEquals(integer(4), c.call("BITCOUNT", "s", "0", "0"));
    assertEquals(integer(6), c.call("BITCOUNT", "s", "1", "1"));
    assertEquals(integer(10), c.call("BITCOUNT", "s", "-3", "-1"));
    assertEquals(integer(6), c.call("BITCOUNT", "s", "1", "1", "BYTE"));
    assertEquals(integer(17), c.call("BITCOUNT", "s", "5", "30", "BIT"));
    assertEquals(integer(0), c.call("BITCOUNT", "s", "-1", "-1", "bit"));
    assertEquals(integer(1), c.call("BITCOUNT", "s", "-2", "-2", "bit"));
    assertEquals(integer(0), c.call("BITCOUNT", "s", "-1", "-2"));
    assertEquals(integer(0), c.call("BITCOUNT", "s", "10", "20"));
    assertEquals(integer(26), c.call("BITCOUNT", "s", "0", "1000"));
    assertEquals(integer(0), c.call("BITCOUNT", "missing"));
    assertEquals(SYNTAX, c.call("BITCOUNT", "s", "0"));
    assertEquals(SYNTAX, c.call("BITCOUNT", "s", "0", "1", "WORD"));
    assertEquals(NOT_INTEGER, c.call("BITCOUNT", "s", "a", "1"));
  }

  @Test
  void bitposFindsTheFirstSetOrClearBit() throws IOException {
    c.call("SET", "p", "\u00ff\u00f0\u0000");
    assertEquals(integer(12), c.call("BITPOS", "p", "0"));
    assertEquals(integer(0), c.call("BITPOS", "p", "1"));
    assertEquals(integer(8), c.call("BITPOS", "p", "1", "1"));
    assertEquals(integer(16), c.call("BITPOS", "p", "0", "2"));
    assertEquals(integer(-1), c.call("BITPOS", "p", "1", "2"));
    assertEquals(integer(12), c.call("BITPOS", "p", "0", "1", "1"));
    assertEquals(integer(2), c.call("BITPOS", "p", "1", "2", "-1", "BIT"));
    assertEquals(integer(9), c.call("BITPOS", "p", "1", "9", "15", "BIT"));
    assertEquals(integer(12), c.call("BITPOS", "p", "0", "9", "15", "BIT"));
    assertEquals(integer(-1), c.call("BITPOS", "p", "0", "0", "7", "BIT"));
    assertEquals(integer(-1), c.call("BITPOS", "p", "0", "3"), "a range past the end is empty");
    c.call("SET", "ones", "\u00ff\u00ff");
    assertEquals(integer(16), c.call("BITPOS", "ones", "0"), "past the end: the padding counts");
    assertEquals(
        integer(-1), c.call("BITPOS", "ones", "0", "0", "-1"), "an explicit end: it does not");
    assertEquals(integer(-1), c.call("BITPOS", "missing", "1"));
    assertEquals(integer(0), c.call("BITPOS", "missing", "0"));
    assertEquals(error("ERR The bit argument must be 1 or 0."), c.call("BITPOS", "p", "2"));
    assertEquals(SYNTAX, c.call("BITPOS", "p", "1", "0", "1", "WORD"));
    assertEquals(SYNTAX, c.call("BITPOS", "p", "1", "0", "1", "BIT", "x"));
  }

  @Test
  void bitopCombinesValuesPaddedWithZeroesAndStoresOrDeletesTheTarget() throws IOException {
    c.call("SET", "a", "abc");
    c.call("SET", "b", "a");
    assertEquals(integer(3), c.call("BITOP", "AND", "d", "a", "b"));
    assertEquals(bulk("a\u0000\u0000"), c.call("GET", "d"));
    assertEquals(integer(3), c.call("BITOP", "or", "d", "a", "b", "missing"));
    assertEquals(bulk("abc"), c.call("GET", "d"));
    assertEquals(integer(3), c.call("BITOP", "XOR", "d", "a", "b"));
    assertEquals(bulk("\u0000bc"), c.call("GET", "d"));
    assertEquals(integer(1), c.call("BITOP", "NOT", "d", "b"));
    assertEquals(bulk("\u009e"), c.call("GET", "d"));
    c.call("SET", "d", "x", "EX", "100");
    assertEquals(integer(0), c.call("BITOP", "AND", "d", "missing", "missing2"));
    assertEquals(integer(0), c.call("EXISTS", "d"), "an empty result deletes the target");
    assertEquals(
        error("ERR BITOP NOT must be called with a single source key."),
        c.call("BITOP", "NOT", "d", "a", "b"));
    assertEquals(SYNTAX, c.call("BITOP", "NAND", "d", "a"));
    assertEquals(arity("bitop"), c.call("BITOP", "AND", "d"));
  }

  @Test
  void bitfieldReadsWritesAndIncrementsWithEachOverflowRule() throws IOException {
    assertEquals(
        "*3\r\n" + integer(0) + integer(100) + integer(0),
        c.call(
            "BITFIELD", "f", "SET", "i8", "0", "100", "INCRBY", "i8", "0", "0", "GET", "u4", "#3"));
    assertEquals(
        "*2\r\n" + integer(-128) + integer(127),
        c.call(
            "BITFIELD",
            "f",
            "INCRBY",
            "i8",
            "0",
            "28",
            "OVERFLOW",
            "SAT",
            "INCRBY",
            "i8",
            "0",
            "1000"));
    assertEquals(
        "*2\r\n" + NIL + integer(127),
        c.call("BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "1", "GET", "i8", "0"));
    assertEquals(
        "*3\r\n" + integer(0) + integer(15) + integer(255),
        c.call("BITFIELD", "g", "SET", "u8", "#1", "-1", "GET", "u4", "8", "GET", "u8", "8"));
    assertEquals(
        "*2\r\n" + integer(4) + integer(0),
        c.call("BITFIELD", "g", "INCRBY", "u8", "8", "5", "OVERFLOW", "SAT", "GET", "u3", "8"));
    assertEquals(
        "*2\r\n" + integer(Long.MAX_VALUE) + integer(Long.MIN_VALUE),
        c.call(
            "BITFIELD",
            "h",
            "INCRBY",
            "i64",
            "0",
            "9223372036854775807",
            "INCRBY",
            "i64",
            "0",
            "1"));
    assertEquals("*0\r\n", c.call("BITFIELD", "f"));
    assertEquals("*1\r\n" + integer(127), c.call("BITFIELD_RO", "f", "GET", "i8", "0"));
    assertEquals(
        error("ERR BITFIELD_RO only supports the GET subcommand"),
        c.call("BITFIELD_RO", "f", "SET", "i8", "0", "1"));
    String badType =
        error(
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported"
                + " but i64 is.");
    assertEquals(badType, c.call("BITFIELD", "f", "GET", "u64", "0"));
    assertEquals(badType, c.call("BITFIELD", "f", "GET", "i65", "0"));
    assertEquals(badType, c.call("BITFIELD", "f", "GET", "x8", "0"));
    assertEquals(badType, c.call("BITFIELD", "f", "GET", "i0", "0"));
    assertEquals(BIT_OFFSET, c.call("BITFIELD", "f", "GET", "i8", "-1"));
    assertEquals(
        error("ERR Invalid OVERFLOW type specified"), c.call("BITFIELD", "f", "OVERFLOW", "X"));
    assertEquals(SYNTAX, c.call("BITFIELD", "f", "GET", "i8"));
    assertEquals(SYNTAX, c.call("BITFIELD", "f", "FOO", "i8", "0"));
    assertEquals(NOT_INTEGER, c.call("BITFIELD", "f", "SET", "i8", "0", "x"));
    assertEquals(
        "*1\r\n" + integer(127),
        c.call("BITFIELD", "f", "GET", "i8", "0"),
        "errors change nothing");
  }

  @Test
  void lcsGivesTheSubsequenceItsLengthOrItsRanges() throws IOException {
    c.call("MSET", "key1", "ohmytext", "key2", "mynewtext");
    assertEquals(bulk("mytext"), c.call("LCS", "key1", "key2"));
    assertEquals(integer(6), c.call("LCS", "key1", "key2", "LEN"));
    assertEquals(
        "*4\r\n"
            + bulk("matches")
            + "*2\r\n"
            + "*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
            + "*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n"
            + bulk("len")
            + integer(6),
        c.call("LCS", "key1", "key2", "IDX"));
    assertEquals(
        "*4\r\n"
            + bulk("matches")
            + "*1\r\n"
            + "*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
            + bulk("len")
            + integer(6),
        c.call("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"));
    assertEquals(EMPTY_BULK, c.call("LCS", "key1", "missing"));
    assertEquals(
        error("ERR If you want both the length and indexes, please just use IDX."),
        c.call("LCS", "key1", "key2", "LEN", "IDX"));
    assertEquals(SYNTAX, c.call("LCS", "key1", "key2", "FOO"));
    assertEquals(NOT_INTEGER, c.call("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "x"));
  }

  @Test
  void setrangeWithAHugeOffsetIsRefusedAndAnEmptyValueIsNot() throws IOException {
    c.call("SET", "r", "abc");
    String tooLarge = error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    assertEquals(tooLarge, c.call("SETRANGE", "r", "9223372036854775807", "x"));
    assertEquals(tooLarge, c.call("SETRANGE", "r", "4294967296000", "x"));
    assertEquals(integer(3), c.call("SETRANGE", "r", "9223372036854775807", ""));
    assertEquals(error("ERR offset is out of range"), c.call("SETRANGE", "r", "-1", "x"));
    assertEquals(integer(0), c.call("SETRANGE", "missing", "9223372036854775807", ""));
    assertEquals(bulk("abc"), c.call("GET", "r"));
  }

  /**
   * A seeded random walk over small values: each step sets a few bits, a field or a whole value,
   * then reads counts and positions; the digest of every reply must be what the reference gives.
   */
  @Test
  void aSeededRandomWalkAnswersAsRedisDoes() throws IOException {
    Random random = new Random(18);
    StringBuilder replies = new StringBuilder();
    for (int step = 0; step < 1500; step++) {
      String key = "w" + random.nextInt(4);
      String reply =
          switch (random.nextInt(9)) {
            case 0 ->
                c.call(
                    "SETBIT",
                    key,
                    Integer.toString(random.nextInt(200)),
                    Integer.toString(random.nextInt(2)));
            case 1 -> c.call("GETBIT", key, Integer.toString(random.nextInt(220)));
            case 2 ->
                c.call(
                    "BITCOUNT",
                    key,
                    Integer.toString(random.nextInt(60) - 30),
                    Integer.toString(random.nextInt(60) - 30),
                    random.nextBoolean() ? "BIT" : "BYTE");
            case 3 ->
                c.call(
                    "BITPOS",
                    key,
                    Integer.toString(random.nextInt(2)),
                    Integer.toString(random.nextInt(60) - 30),
                    Integer.toString(random.nextInt(60) - 30),
                    random.nextBoolean() ? "BIT" : "BYTE");
            case 4 ->
                c.call(
                    "BITPOS",
                    key,
                    Integer.toString(random.nextInt(2)),
                    Integer.toString(random.nextInt(40) - 20));
            case 5 ->
                c.call(
                    "BITOP",
                    new String[] {"AND", "OR", "XOR"}[random.nextInt(3)],
                    key,
                    "w" + random.nextInt(4),
                    "w" + random.nextInt(4));
            case 6 -> {
              String type = (random.nextBoolean() ? "i" : "u") + (1 + random.nextInt(63));
              yield c.call(
                  "BITFIELD",
                  key,
                  "OVERFLOW",
                  new String[] {"WRAP", "SAT", "FAIL"}[random.nextInt(3)],
                  random.nextBoolean() ? "INCRBY" : "SET",
                  type,
                  Integer.toString(random.nextInt(150)),
                  Long.toString(random.nextLong() >> random.nextInt(64)),
                  "GET",
                  type,
                  Integer.toString(random.nextInt(150)));
            }
            case 7 ->
                c.call(
                    "LCS",
                    key,
                    "w" + random.nextInt(4),
                    random.nextBoolean() ? "LEN" : "IDX",
                    "WITHMATCHLEN");
            default -> c.call("BITCOUNT", key);
          };
      replies.append(reply);
    }
    // The reference's digest of the same walk, from redis-server 7.0.15.
    assertEquals(REFERENCE_DIGEST, Integer.toHexString(replies.toString().hashCode()));
  }

  private static final String REFERENCE_DIGEST = "9e4cd53f";
}
