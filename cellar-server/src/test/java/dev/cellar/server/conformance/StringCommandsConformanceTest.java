package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The string family against Redis's documented replies: every option of SET, the expiry variants,
 * counters and their overflow, ranges at and beyond the ends, and the exact error for each misuse.
 */
class StringCommandsConformanceTest extends AbstractConformanceTest {

  // ------------------------------------------------------------------ GET / SET

  @Test
  void getOfAMissingKeyIsTheNullBulk() throws IOException {
    assertEquals(NIL, c.call("GET", "missing"));
  }

  @Test
  void keysAndValuesAreBinarySafe() throws IOException {
    String value = "a\r\nb\0c\u00ff\r\n";
    assertEquals(OK, c.call("SET", "k\r\n\0", value));
    assertEquals(bulk(value), c.call("GET", "k\r\n\0"));
    assertEquals(OK, c.call("SET", "k", ""));
    assertEquals(EMPTY_BULK, c.call("GET", "k"));
  }

  @Test
  void theEmptyKey() throws IOException {
    if (server.isRedis()) {
      assertEquals(OK, c.call("SET", "", "v"));
      assertEquals(bulk("v"), c.call("GET", ""));
    } else {
      // A deliberate difference: the engine's keys are 1 to 65536 bytes. The refusal is an error
      // reply like any other, and the connection goes on.
      assertEquals(
          error("ERR key is empty; keys must be 1 to 65536 bytes"), c.call("SET", "", "v"));
      assertEquals(simple("PONG"), c.call("PING"));
    }
  }

  @Test
  void setGetOnAMissingKeyRepliesNilAndSets() throws IOException {
    assertEquals(NIL, c.call("SET", "k", "v", "GET"));
    assertEquals(bulk("v"), c.call("GET", "k"));
    assertEquals(bulk("v"), c.call("SET", "k", "w", "GET"));
    assertEquals(bulk("w"), c.call("GET", "k"));
  }

  @Test
  void setNxAndXxReplyNilWhenTheyDoNotSet() throws IOException {
    assertEquals(NIL, c.call("SET", "k", "v", "XX"));
    assertEquals(NIL, c.call("GET", "k"));
    assertEquals(OK, c.call("SET", "k", "v", "NX"));
    assertEquals(NIL, c.call("SET", "k", "w", "NX"));
    assertEquals(OK, c.call("SET", "k", "x", "xx"));
    assertEquals(bulk("x"), c.call("GET", "k"));
  }

  @Test
  void setNxGetRepliesTheOldValueAndSetsOnlyWhenAbsent() throws IOException {
    // Allowed together since Redis 7.0.
    assertEquals(NIL, c.call("SET", "k", "v", "NX", "GET"));
    assertEquals(bulk("v"), c.call("SET", "k", "w", "NX", "GET"));
    assertEquals(bulk("v"), c.call("GET", "k"));
    assertEquals(NIL, c.call("SET", "other", "w", "XX", "GET"));
    assertEquals(integer(0), c.call("EXISTS", "other"));
  }

  @Test
  void setOptionsThatConflictOrAreIncompleteAreSyntaxErrors() throws IOException {
    assertEquals(SYNTAX, c.call("SET", "k", "v", "NX", "XX"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "EX", "10", "PX", "100"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "EX", "10", "KEEPTTL"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "KEEPTTL", "PXAT", "10"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "EX"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "FOO"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }

  @Test
  void anOptionMayRepeatAndTheLastExpiryCounts() throws IOException {
    assertEquals(OK, c.call("SET", "k", "v", "EX", "0", "EX", "100"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("SET", "k", "w", "NX", "NX", "GET", "GET"));
    assertEquals(OK, c.call("SET", "k", "v", "KEEPTTL", "KEEPTTL"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(SYNTAX, c.call("SET", "k", "v", "PX", "100", "EX", "100"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "PX", "soon", "PX", "50000"));
    assertEquals(integer(50), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "PERSIST", "PERSIST"));
    assertEquals(integer(-1), c.call("TTL", "k"));
  }

  @Test
  void setExpiryMustBeAPositiveIntegerThatDoesNotOverflow() throws IOException {
    assertEquals(NOT_INTEGER, c.call("SET", "k", "v", "EX", "ten"));
    assertEquals(NOT_INTEGER, c.call("SET", "k", "v", "PX", "1.5"));
    assertEquals(
        error("ERR invalid expire time in 'set' command"), c.call("SET", "k", "v", "EX", "0"));
    assertEquals(
        error("ERR invalid expire time in 'set' command"), c.call("SET", "k", "v", "PX", "-5"));
    assertEquals(
        error("ERR invalid expire time in 'set' command"),
        c.call("SET", "k", "v", "EX", "9223372036854775807"));
    assertEquals(
        error("ERR invalid expire time in 'set' command"),
        c.call("SET", "k", "v", "EX", "9223372036854776"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }

  @Test
  void setWithExpiryAndKeepTtl() throws IOException {
    assertEquals(OK, c.call("SET", "k", "v", "EX", "100"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(OK, c.call("SET", "k", "w", "KEEPTTL"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(OK, c.call("SET", "k", "x"));
    assertEquals(integer(-1), c.call("TTL", "k"), "a plain SET drops the TTL");
    assertEquals(OK, c.call("SET", "k", "y", "PX", "100000"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(OK, c.call("SET", "k", "y", "EXAT", "33177117420"));
    assertEquals(integer(33177117420L), c.call("EXPIRETIME", "k"));
    assertEquals(OK, c.call("SET", "k", "y", "PXAT", "33177117420123"));
    assertEquals(integer(33177117420123L), c.call("PEXPIRETIME", "k"));
  }

  @Test
  void setWithAnAbsoluteExpiryInThePastLeavesNoKey() throws IOException {
    assertEquals(OK, c.call("SET", "k", "v", "PXAT", "1"));
    assertEquals(NIL, c.call("GET", "k"));
    assertEquals(integer(-2), c.call("TTL", "k"));
    assertEquals(OK, c.call("SET", "k", "v", "EXAT", "1"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }

  // ------------------------------------------------------------------ SETNX SETEX PSETEX GETSET
  // GETDEL GETEX

  @Test
  void setnx() throws IOException {
    assertEquals(integer(1), c.call("SETNX", "k", "v"));
    assertEquals(integer(0), c.call("SETNX", "k", "w"));
    assertEquals(bulk("v"), c.call("GET", "k"));
  }

  @Test
  void setexAndPsetex() throws IOException {
    assertEquals(OK, c.call("SETEX", "k", "100", "v"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(OK, c.call("PSETEX", "p", "100000", "v"));
    assertEquals(integer(100), c.call("TTL", "p"));
    assertEquals(
        error("ERR invalid expire time in 'setex' command"), c.call("SETEX", "k", "0", "v"));
    assertEquals(
        error("ERR invalid expire time in 'setex' command"), c.call("SETEX", "k", "-10", "v"));
    assertEquals(
        error("ERR invalid expire time in 'psetex' command"), c.call("PSETEX", "k", "0", "v"));
    assertEquals(NOT_INTEGER, c.call("SETEX", "k", "ten", "v"));
    assertEquals(arity("setex"), c.call("SETEX", "k", "10"));
    assertEquals(bulk("v"), c.call("GET", "k"), "failed SETEX left the key alone");
  }

  @Test
  void getsetRepliesTheOldValueAndDropsTheTtl() throws IOException {
    assertEquals(NIL, c.call("GETSET", "k", "v"));
    assertEquals(OK, c.call("SET", "k", "v", "EX", "100"));
    assertEquals(bulk("v"), c.call("GETSET", "k", "w"));
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(bulk("w"), c.call("GET", "k"));
  }

  @Test
  void getdel() throws IOException {
    assertEquals(NIL, c.call("GETDEL", "k"));
    c.call("SET", "k", "v");
    assertEquals(bulk("v"), c.call("GETDEL", "k"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }

  @Test
  void getexSetsOrRemovesTheTtl() throws IOException {
    assertEquals(NIL, c.call("GETEX", "k", "EX", "100"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
    c.call("SET", "k", "v");
    assertEquals(bulk("v"), c.call("GETEX", "k"));
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "EX", "100"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "PX", "50000"));
    assertEquals(integer(50), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "EXAT", "33177117420"));
    assertEquals(integer(33177117420L), c.call("EXPIRETIME", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "PERSIST"));
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GETEX", "k", "PXAT", "1"));
    assertEquals(integer(0), c.call("EXISTS", "k"), "an expiry in the past removes the key");
  }

  @Test
  void getexOptionErrors() throws IOException {
    c.call("SET", "k", "v");
    assertEquals(
        error("ERR invalid expire time in 'getex' command"), c.call("GETEX", "k", "EX", "0"));
    assertEquals(NOT_INTEGER, c.call("GETEX", "k", "EX", "soon"));
    // The expiry's value is checked only once the key is found; its syntax always.
    assertEquals(NIL, c.call("GETEX", "missing", "PX", "-1"));
    assertEquals(NIL, c.call("GETEX", "missing", "EX", "soon"));
    assertEquals(SYNTAX, c.call("GETEX", "missing", "PERSIST", "EX", "1"));
    assertEquals(SYNTAX, c.call("GETEX", "k", "PERSIST", "EX", "10"));
    assertEquals(SYNTAX, c.call("GETEX", "k", "EX", "10", "PX", "10"));
    assertEquals(SYNTAX, c.call("GETEX", "k", "EX"));
    assertEquals(SYNTAX, c.call("GETEX", "k", "KEEPTTL"));
    assertEquals(integer(-1), c.call("TTL", "k"));
  }

  // ------------------------------------------------------------------ MGET MSET MSETNX

  @Test
  void mgetRepliesNilForMissingKeys() throws IOException {
    assertEquals(OK, c.call("MSET", "a", "1", "c", "3"));
    assertEquals(array("1", null, "3", "1"), c.call("MGET", "a", "b", "c", "a"));
  }

  @Test
  void mgetOfMoreKeysThanOneBatchWindowAnswersEachInOrder() throws IOException {
    java.util.List<String> mset = new java.util.ArrayList<>(java.util.List.of("MSET"));
    java.util.List<String> mget = new java.util.ArrayList<>(java.util.List.of("MGET"));
    String[] expected = new String[100];
    for (int i = 0; i < 100; i++) {
      if (i % 3 != 0) {
        mset.add("key:" + i);
        mset.add("value-" + i);
        expected[i] = "value-" + i;
      }
      mget.add("key:" + i);
    }
    assertEquals(OK, c.call(mset.toArray(String[]::new)));
    assertEquals(array(expected), c.call(mget.toArray(String[]::new)));
  }

  @Test
  void msetOfAKeyGivenTwiceKeepsItsLastValue() throws IOException {
    assertEquals(OK, c.call("MSET", "a", "1", "b", "2", "a", "3"));
    assertEquals(array("3", "2"), c.call("MGET", "a", "b"));
  }

  @Test
  void msetNeedsPairs() throws IOException {
    assertEquals(arity("mset"), c.call("MSET", "a", "1", "b"));
    assertEquals(arity("msetnx"), c.call("MSETNX", "a", "1", "b"));
    assertEquals(arity("mset"), c.call("MSET", "a"));
    assertEquals(integer(0), c.call("EXISTS", "a"));
  }

  @Test
  void msetnxSetsNothingIfAnyKeyExists() throws IOException {
    assertEquals(integer(1), c.call("MSETNX", "a", "1", "b", "2"));
    assertEquals(integer(0), c.call("MSETNX", "c", "3", "b", "x"));
    assertEquals(array("1", "2", null), c.call("MGET", "a", "b", "c"));
  }

  @Test
  void msetDropsTtls() throws IOException {
    c.call("SET", "a", "1", "EX", "100");
    assertEquals(OK, c.call("MSET", "a", "2"));
    assertEquals(integer(-1), c.call("TTL", "a"));
  }

  // ------------------------------------------------------------------ APPEND STRLEN GETRANGE
  // SETRANGE

  @Test
  void appendCreatesExtendsAndKeepsTheTtl() throws IOException {
    assertEquals(integer(5), c.call("APPEND", "k", "Hello"));
    c.call("EXPIRE", "k", "100");
    assertEquals(integer(11), c.call("APPEND", "k", " World"));
    assertEquals(bulk("Hello World"), c.call("GET", "k"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(integer(11), c.call("APPEND", "k", ""));
  }

  @Test
  void strlen() throws IOException {
    assertEquals(integer(0), c.call("STRLEN", "missing"));
    c.call("SET", "k", "Hello world");
    assertEquals(integer(11), c.call("STRLEN", "k"));
  }

  @Test
  void getrangeAsDocumented() throws IOException {
    c.call("SET", "mykey", "This is a string");
    assertEquals(bulk("This"), c.call("GETRANGE", "mykey", "0", "3"));
    assertEquals(bulk("ing"), c.call("GETRANGE", "mykey", "-3", "-1"));
    assertEquals(bulk("This is a string"), c.call("GETRANGE", "mykey", "0", "-1"));
    assertEquals(bulk("string"), c.call("GETRANGE", "mykey", "10", "100"));
    assertEquals(bulk("ing"), c.call("SUBSTR", "mykey", "-3", "-1"), "GETRANGE's old name");
  }

  @Test
  void getrangeOutOfRange() throws IOException {
    c.call("SET", "k", "Hello");
    assertEquals(EMPTY_BULK, c.call("GETRANGE", "missing", "0", "-1"));
    assertEquals(EMPTY_BULK, c.call("GETRANGE", "k", "3", "1"));
    assertEquals(EMPTY_BULK, c.call("GETRANGE", "k", "-1", "-3"));
    assertEquals(EMPTY_BULK, c.call("GETRANGE", "k", "5", "10"));
    assertEquals(bulk("Hello"), c.call("GETRANGE", "k", "-100", "100"));
    // Redis 7.0 and 7.2 clamp a negative end below the start to 0 and return the first byte
    // (Redis 8 returns an empty string instead); we follow 7.x.
    assertEquals(bulk("H"), c.call("GETRANGE", "k", "0", "-100"));
    assertEquals(NOT_INTEGER, c.call("GETRANGE", "k", "a", "1"));
    assertEquals(NOT_INTEGER, c.call("GETRANGE", "k", "0", "99999999999999999999"));
  }

  @Test
  void setrangeAsDocumented() throws IOException {
    c.call("SET", "key1", "Hello World");
    assertEquals(integer(11), c.call("SETRANGE", "key1", "6", "Redis"));
    assertEquals(bulk("Hello Redis"), c.call("GET", "key1"));
    assertEquals(integer(11), c.call("SETRANGE", "key2", "6", "Redis"));
    assertEquals(bulk("\0\0\0\0\0\0Redis"), c.call("GET", "key2"));
  }

  @Test
  void setrangeEdges() throws IOException {
    assertEquals(integer(0), c.call("SETRANGE", "missing", "5", ""));
    assertEquals(integer(0), c.call("EXISTS", "missing"), "setting nothing creates nothing");
    c.call("SET", "k", "abc", "EX", "100");
    assertEquals(integer(3), c.call("SETRANGE", "k", "10", ""));
    assertEquals(integer(4), c.call("SETRANGE", "k", "1", "XYZ"));
    assertEquals(bulk("aXYZ"), c.call("GET", "k"));
    assertEquals(integer(100), c.call("TTL", "k"));
    assertEquals(error("ERR offset is out of range"), c.call("SETRANGE", "k", "-1", "x"));
    assertEquals(NOT_INTEGER, c.call("SETRANGE", "k", "one", "x"));
    // Past the largest string (512 MB in Redis, proto-max-bulk-len in both).
    assertEquals(
        error("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
        c.call("SETRANGE", "k", "536870912", "x"));
    assertEquals(bulk("aXYZ"), c.call("GET", "k"));
  }

  // ------------------------------------------------------------------ counters

  @Test
  void incrAndDecrStartFromZeroAndKeepTheTtl() throws IOException {
    assertEquals(integer(1), c.call("INCR", "n"));
    assertEquals(integer(-1), c.call("DECR", "m"));
    c.call("EXPIRE", "n", "100");
    assertEquals(integer(11), c.call("INCRBY", "n", "10"));
    assertEquals(integer(-9), c.call("DECRBY", "n", "20"));
    assertEquals(integer(100), c.call("TTL", "n"));
    assertEquals(bulk("-9"), c.call("GET", "n"));
  }

  @Test
  void incrOfANonIntegerValue() throws IOException {
    for (String value :
        new String[] {"abc", " 1", "1 ", "01", "-0", "+1", "1.0", "", "9223372036854775808"}) {
      c.call("SET", "k", value);
      assertEquals(NOT_INTEGER, c.call("INCR", "k"), "INCR of '" + value + "'");
      assertEquals(bulk(value), c.call("GET", "k"));
    }
    assertEquals(NOT_INTEGER, c.call("INCRBY", "n", "1.5"));
    assertEquals(NOT_INTEGER, c.call("DECRBY", "n", "x"));
    assertEquals(integer(0), c.call("EXISTS", "n"));
  }

  @Test
  void incrOverflowIsAnErrorAndLeavesTheValue() throws IOException {
    c.call("SET", "max", "9223372036854775807");
    assertEquals(error("ERR increment or decrement would overflow"), c.call("INCR", "max"));
    assertEquals(bulk("9223372036854775807"), c.call("GET", "max"));
    c.call("SET", "min", "-9223372036854775808");
    assertEquals(error("ERR increment or decrement would overflow"), c.call("DECR", "min"));
    assertEquals(error("ERR increment or decrement would overflow"), c.call("INCRBY", "min", "-1"));
    assertEquals(integer(Long.MAX_VALUE), c.call("INCRBY", "z", "9223372036854775807"));
    assertEquals(error("ERR increment or decrement would overflow"), c.call("INCRBY", "z", "1"));
    assertEquals(integer(-Long.MAX_VALUE), c.call("DECRBY", "y", "9223372036854775807"));
    assertEquals(integer(Long.MIN_VALUE), c.call("DECR", "y"));
    assertEquals(error("ERR increment or decrement would overflow"), c.call("DECR", "y"));
  }

  @Test
  void decrbyOfTheSmallestIntegerCannotBeNegated() throws IOException {
    // Redis 7.0 added this check (DECRBY negates its argument).
    assertEquals(
        error("ERR decrement would overflow"), c.call("DECRBY", "k", "-9223372036854775808"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }

  @Test
  void incrbyfloatAsDocumented() throws IOException {
    c.call("SET", "mykey", "10.50");
    assertEquals(bulk("10.6"), c.call("INCRBYFLOAT", "mykey", "0.1"));
    assertEquals(bulk("5.6"), c.call("INCRBYFLOAT", "mykey", "-5"));
    c.call("SET", "mykey", "5.0e3");
    assertEquals(bulk("5200"), c.call("INCRBYFLOAT", "mykey", "2.0e2"));
    assertEquals(bulk("5200"), c.call("GET", "mykey"));
    assertEquals(bulk("3"), c.call("INCRBYFLOAT", "new", "3"));
    assertEquals(bulk("0"), c.call("INCRBYFLOAT", "new", "-3.0"));
  }

  @Test
  void incrbyfloatComputesInExtendedPrecisionAndPrintsSeventeenDecimals() throws IOException {
    assertEquals(bulk("123456789012345678"), c.call("INCRBYFLOAT", "a", "123456789012345678"));
    assertEquals(bulk("0"), c.call("INCRBYFLOAT", "b", "1e-20"));
    assertEquals(bulk("0.00000000015"), c.call("INCRBYFLOAT", "c", "1.5e-10"));
    assertEquals(
        bulk("0.12345678901234568"), c.call("INCRBYFLOAT", "d", "0.123456789012345678901"));
    assertEquals(bulk("1000000000000000000024696061952"), c.call("INCRBYFLOAT", "e", "1e30"));
    assertEquals(bulk("0.1"), c.call("INCRBYFLOAT", "f", "0.1"));
    assertEquals(bulk("0.3"), c.call("INCRBYFLOAT", "f", "0.2"));
    assertEquals(bulk("1.5"), c.call("INCRBYFLOAT", "g", "+1.5"));
    assertEquals(bulk("1"), c.call("INCRBYFLOAT", "h", "1."));
    assertEquals(bulk("0.5"), c.call("INCRBYFLOAT", "i", ".5"));
    assertEquals(bulk("0"), c.call("INCRBYFLOAT", "j", "-0.0"));
  }

  @Test
  void incrbyfloatOverflow() throws IOException {
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "n", "1e5000"));
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "n", "1e-5000"));
    assertEquals(integer(0), c.call("EXISTS", "n"));
    c.call("INCRBYFLOAT", "n", "1e4932");
    assertEquals(
        error("ERR increment would produce NaN or Infinity"), c.call("INCRBYFLOAT", "n", "1e4932"));
  }

  @Test
  void incrbyfloatErrors() throws IOException {
    c.call("SET", "k", "abc");
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "k", "1"));
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "n", "x"));
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "n", " 1"));
    assertEquals(error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "n", "nan"));
    assertEquals(
        error("ERR increment would produce NaN or Infinity"), c.call("INCRBYFLOAT", "n", "inf"));
    assertEquals(
        error("ERR increment would produce NaN or Infinity"),
        c.call("INCRBYFLOAT", "n", "-Infinity"));
    assertEquals(integer(0), c.call("EXISTS", "n"));
    c.call("SET", "inf", "inf");
    assertEquals(
        error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "inf", "x"), "syntax first");
    assertEquals(
        error("ERR increment would produce NaN or Infinity"), c.call("INCRBYFLOAT", "inf", "1"));
    assertEquals(
        error("ERR value is not a valid float"), c.call("INCRBYFLOAT", "k", "inf"), "syntax first");
  }

  @Test
  void incrbyfloatKeepsTheTtl() throws IOException {
    c.call("SET", "k", "1", "EX", "100");
    assertEquals(bulk("1.5"), c.call("INCRBYFLOAT", "k", "0.5"));
    assertEquals(integer(100), c.call("TTL", "k"));
  }

  // ------------------------------------------------------------------ arity

  @Test
  void wrongArityNamesTheCommandInLowerCase() throws IOException {
    assertEquals(arity("get"), c.call("GET"));
    assertEquals(arity("get"), c.call("get", "a", "b"));
    assertEquals(arity("set"), c.call("Set", "k"));
    assertEquals(arity("incr"), c.call("INCR"));
    assertEquals(arity("incrby"), c.call("INCRBY", "k"));
    assertEquals(arity("getrange"), c.call("GETRANGE", "k", "0"));
    assertEquals(arity("substr"), c.call("SUBSTR", "k", "0"));
    assertEquals(arity("mget"), c.call("MGET"));
    assertEquals(arity("append"), c.call("APPEND", "k"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
  }
}
