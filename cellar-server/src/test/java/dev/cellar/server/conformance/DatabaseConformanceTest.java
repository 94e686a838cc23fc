package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Several databases ({@code SELECT}, {@code SWAPDB}, {@code MOVE}, {@code COPY ... DB}, {@code
 * FLUSHDB}, {@code FLUSHALL}), as Redis answers them: each database is a keyspace of its own for
 * every command, every type, expiry, scans, keyspace events, watches and blocked clients.
 */
class DatabaseConformanceTest extends AbstractConformanceTest {

  @Test
  void eachDatabaseIsAKeyspaceOfItsOwn() throws IOException {
    c.call("SET", "k", "zero");
    assertEquals(OK, c.call("SELECT", "3"));
    assertEquals(NIL, c.call("GET", "k"));
    c.call("SET", "k", "three");
    c.call("RPUSH", "list", "a", "b");
    c.call("HSET", "hash", "f", "v");
    assertEquals(integer(3), c.call("DBSIZE"));
    assertEquals(bulk("three"), c.call("GET", "k"));
    assertEquals(OK, c.call("SELECT", "0"));
    assertEquals(bulk("zero"), c.call("GET", "k"));
    assertEquals(integer(1), c.call("DBSIZE"));
    assertEquals(integer(0), c.call("EXISTS", "list"));
    assertEquals(array("k"), c.call("KEYS", "*"));
    try (RawClient d = server.connect()) {
      assertEquals(bulk("zero"), d.call("GET", "k"), "a new connection starts in database 0");
      d.call("SELECT", "3");
      assertEquals(array("a", "b"), d.call("LRANGE", "list", "0", "-1"));
      assertEquals(bulk("v"), d.call("HGET", "hash", "f"));
    }
  }

  @Test
  void selectChecksItsIndex() throws IOException {
    assertEquals(OK, c.call("SELECT", "15"));
    assertEquals(error("ERR DB index is out of range"), c.call("SELECT", "16"));
    assertEquals(error("ERR DB index is out of range"), c.call("SELECT", "-1"));
    assertEquals(NOT_INTEGER, c.call("SELECT", "one"));
    assertTrue(c.call("CLIENT", "INFO").contains(" db=15 "), "CLIENT INFO shows the database");
    assertEquals(simple("RESET"), c.call("RESET"));
    assertTrue(c.call("CLIENT", "INFO").contains(" db=0 "), "RESET selects database 0");
  }

  @Test
  void flushdbEmptiesTheSelectedDatabaseOnlyAndFlushallEveryOne() throws IOException {
    c.call("SET", "a", "1");
    c.call("SELECT", "1");
    c.call("SET", "b", "1");
    c.call("SADD", "s", "x");
    c.call("SELECT", "2");
    c.call("SET", "c", "1");
    c.call("SELECT", "1");
    assertEquals(OK, c.call("FLUSHDB"));
    assertEquals(integer(0), c.call("DBSIZE"));
    c.call("SELECT", "0");
    assertEquals(integer(1), c.call("DBSIZE"));
    assertEquals(OK, c.call("FLUSHALL"));
    assertEquals(integer(0), c.call("DBSIZE"));
    c.call("SELECT", "2");
    assertEquals(integer(0), c.call("DBSIZE"));
  }

  @Test
  void infoKeyspaceHasALinePerDatabaseWithKeys() throws IOException {
    c.call("SET", "a", "1");
    c.call("SELECT", "4");
    c.call("SET", "b", "1");
    c.call("SET", "c", "1");
    String info = c.call("INFO", "keyspace");
    assertTrue(info.contains("db0:keys=1,"), info);
    assertTrue(info.contains("db4:keys=2,"), info);
    assertTrue(!info.contains("db1:"), info);
  }

  @Test
  void swapdbSwapsEveryKeyOfTwoDatabasesForEveryClient() throws IOException {
    c.call("SET", "k", "zero");
    c.call("SELECT", "1");
    c.call("SET", "k", "one");
    c.call("ZADD", "z", "1", "m");
    try (RawClient d = server.connect()) {
      assertEquals(OK, d.call("SWAPDB", "0", "1"));
      assertEquals(bulk("one"), d.call("GET", "k"), "database 0 now holds what 1 held");
      assertEquals(array("m"), d.call("ZRANGE", "z", "0", "-1"));
    }
    assertEquals(bulk("zero"), c.call("GET", "k"), "a client in 1 sees what 0 held");
    assertEquals(integer(0), c.call("EXISTS", "z"));
    assertEquals(OK, c.call("SWAPDB", "1", "1"));
    assertEquals(error("ERR invalid first DB index"), c.call("SWAPDB", "x", "1"));
    assertEquals(error("ERR invalid second DB index"), c.call("SWAPDB", "1", "x"));
    assertEquals(error("ERR DB index is out of range"), c.call("SWAPDB", "0", "16"));
  }

  @Test
  void moveTakesAKeyWithItsExpiryToAnotherDatabase() throws IOException {
    c.call("SET", "s", "v", "EX", "1000");
    c.call("RPUSH", "l", "a", "b", "c");
    c.call("HSET", "h", "f1", "v1", "f2", "v2");
    assertEquals(integer(1), c.call("MOVE", "s", "2"));
    assertEquals(integer(1), c.call("MOVE", "l", "2"));
    assertEquals(integer(1), c.call("MOVE", "h", "2"));
    assertEquals(integer(0), c.call("DBSIZE"));
    assertEquals(integer(0), c.call("MOVE", "s", "2"), "nothing left to move");
    c.call("SELECT", "2");
    assertEquals(bulk("v"), c.call("GET", "s"));
    String ttl = c.call("TTL", "s");
    assertTrue(ttl.equals(integer(1000)) || ttl.equals(integer(999)), ttl);
    assertEquals(array("a", "b", "c"), c.call("LRANGE", "l", "0", "-1"));
    assertEquals(bulk("v2"), c.call("HGET", "h", "f2"));
    c.call("SELECT", "0");
    c.call("SET", "s", "other");
    assertEquals(integer(0), c.call("MOVE", "s", "2"), "the target has the key already");
    assertEquals(bulk("other"), c.call("GET", "s"));
    assertEquals(
        error("ERR source and destination objects are the same"), c.call("MOVE", "s", "0"));
    assertEquals(error("ERR DB index is out of range"), c.call("MOVE", "s", "16"));
    assertEquals(NOT_INTEGER, c.call("MOVE", "s", "x"));
  }

  @Test
  void copyWithDbCopiesIntoAnotherDatabase() throws IOException {
    c.call("SET", "s", "v");
    c.call("SADD", "set", "a", "b");
    assertEquals(integer(1), c.call("COPY", "s", "s", "DB", "5"));
    assertEquals(integer(1), c.call("COPY", "set", "copy", "DB", "5"));
    assertEquals(integer(0), c.call("COPY", "s", "s", "DB", "5"), "exists without REPLACE");
    c.call("SET", "s", "w");
    assertEquals(integer(1), c.call("COPY", "s", "s", "DB", "5", "REPLACE"));
    assertEquals(integer(0), c.call("COPY", "missing", "s", "DB", "5"));
    assertEquals(error("ERR DB index is out of range"), c.call("COPY", "s", "t", "DB", "99"));
    c.call("SELECT", "5");
    assertEquals(bulk("w"), c.call("GET", "s"));
    assertEquals(integer(2), c.call("SCARD", "copy"));
    c.call("SELECT", "0");
    assertEquals(integer(2), c.call("SCARD", "set"), "the source stays");
  }

  @Test
  void scansAndRandomKeyStayInTheSelectedDatabase() throws IOException {
    for (int i = 0; i < 50; i++) {
      c.call("SET", "zero:" + i, "v");
    }
    c.call("SELECT", "7");
    c.call("SET", "seven", "v");
    assertEquals(bulk("seven"), c.call("RANDOMKEY"));
    @SuppressWarnings("unchecked")
    List<Object> page = (List<Object>) RawClient.parse(c.call("SCAN", "0", "COUNT", "1000"));
    assertEquals(List.of("seven"), page.get(1));
  }

  @Test
  void aWatchedKeyIsTheKeyOfItsDatabase() throws IOException {
    c.call("SELECT", "1");
    c.call("WATCH", "w");
    try (RawClient d = server.connect()) {
      d.call("SET", "w", "in zero"); // another database's key of the same name
    }
    c.call("MULTI");
    c.call("SET", "done", "1");
    assertEquals("*1\r\n+OK\r\n", c.call("EXEC"), "a write to database 0 does not touch it");
    c.call("WATCH", "w");
    try (RawClient d = server.connect()) {
      d.call("SELECT", "1");
      d.call("SET", "w", "in one");
    }
    c.call("MULTI");
    c.call("SET", "done", "2");
    assertEquals("*-1\r\n", c.call("EXEC"), "a write to the watched key fails the EXEC");
  }

  @Test
  void aBlockedPopWaitsForAPushInItsOwnDatabase() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.call("SELECT", "2");
      waiter.send("BLPOP", "q", "5");
      waitForBlocked(1);
      c.call("RPUSH", "q", "in zero");
      c.call("SELECT", "2");
      c.call("RPUSH", "q", "in two");
      assertEquals(array("q", "in two"), waiter.readReply());
      c.call("SELECT", "0");
      assertEquals(integer(1), c.call("LLEN", "q"), "database 0's element stays");
    }
  }

  @Test
  void swapdbServesAClientBlockedOnAKeyTheSwapBrings() throws Exception {
    c.call("SELECT", "1");
    c.call("RPUSH", "q", "from one");
    try (RawClient waiter = server.connect()) {
      waiter.send("BLPOP", "q", "5");
      waitForBlocked(1);
      assertEquals(OK, c.call("SWAPDB", "0", "1"));
      assertEquals(array("q", "from one"), waiter.readReply());
    }
  }

  @Test
  void keyspaceEventsNameTheDatabase() throws IOException {
    try (RawClient admin = server.connect()) {
      assertEquals(OK, admin.call("CONFIG", "SET", "notify-keyspace-events", "KEA"));
      try {
        c.send("PSUBSCRIBE", "__key*__:*");
        c.readReply();
        admin.call("SELECT", "9");
        admin.call("SET", "k", "v");
        assertEquals(
            List.of("pmessage", "__key*__:*", "__keyspace@9__:k", "set"),
            RawClient.parse(c.readReply()));
        assertEquals(
            List.of("pmessage", "__key*__:*", "__keyevent@9__:set", "k"),
            RawClient.parse(c.readReply()));
        admin.call("MOVE", "k", "3");
        assertEquals(
            List.of("pmessage", "__key*__:*", "__keyspace@9__:k", "move_from"),
            RawClient.parse(c.readReply()));
        assertEquals(
            List.of("pmessage", "__key*__:*", "__keyevent@9__:move_from", "k"),
            RawClient.parse(c.readReply()));
        assertEquals(
            List.of("pmessage", "__key*__:*", "__keyspace@3__:k", "move_to"),
            RawClient.parse(c.readReply()));
      } finally {
        admin.call("CONFIG", "SET", "notify-keyspace-events", "");
      }
    }
  }

  @Test
  void expiryWorksInEveryDatabase() throws Exception {
    c.call("SELECT", "6");
    c.call("SET", "gone", "v", "PX", "50");
    c.call("SET", "stays", "v");
    Thread.sleep(400); // no read of "gone": active expiry must reclaim it
    String info = c.call("INFO", "keyspace");
    assertTrue(info.contains("db6:keys=1,"), info);
  }
}
