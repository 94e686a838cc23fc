package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Several clients blocked on one key, as Redis 7 serves them: in the order they blocked, each in
 * turn once the command that added to the key has ended, a client that cannot be served told why
 * while the next one is served, and a served move's destination serving its own waiters in the same
 * pass. The server has more than one event loop here, so the waiters sit on different threads.
 */
class BlockedClientsConformanceTest extends AbstractConformanceTest {
  private static final String NIL_ARRAY = "*-1\r\n";

  /** Redis's "BLPOP with multiple blocked clients", over several rounds so that order is tested. */
  @Test
  void waitersAreServedInTheOrderTheyBlocked() throws Exception {
    for (int round = 0; round < 8; round++) {
      List<RawClient> waiters = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          RawClient w = server.connect();
          waiters.add(w);
          w.send("BLPOP", "q", "0");
          waitForBlocked(i + 1);
        }
        assertEquals(integer(4), c.call("RPUSH", "q", "a", "b", "c", "d"));
        for (int i = 0; i < 4; i++) {
          String element = String.valueOf((char) ('a' + i));
          assertEquals(array("q", element), waiters.get(i).readReply(), "waiter " + i);
        }
        assertEquals(integer(0), c.call("EXISTS", "q"));
      } finally {
        for (RawClient w : waiters) {
          w.close();
        }
      }
    }
  }

  /** Fewer elements than waiters: the first ones get them, the last goes on waiting. */
  @Test
  void theLongestWaitingGetTheElementsAndTheRestWait() throws Exception {
    try (RawClient first = server.connect();
        RawClient second = server.connect();
        RawClient third = server.connect()) {
      first.send("BRPOP", "q", "0");
      waitForBlocked(1);
      second.send("BRPOP", "q", "0");
      waitForBlocked(2);
      third.send("BRPOP", "q", "0");
      waitForBlocked(3);
      c.call("LPUSH", "q", "x", "y");
      assertEquals(array("q", "x"), first.readReply());
      assertEquals(array("q", "y"), second.readReply());
      waitForBlocked(1);
      c.call("LPUSH", "q", "z");
      assertEquals(array("q", "z"), third.readReply());
    }
  }

  /**
   * Redis's "BRPOPLPUSH with multiple blocked clients": the first cannot be served, and is told.
   */
  @Test
  void aWaiterThatCannotBeServedGetsItsErrorAndTheNextIsServed() throws Exception {
    c.call("SET", "target1", "nolist");
    try (RawClient first = server.connect();
        RawClient second = server.connect()) {
      first.send("BRPOPLPUSH", "blist", "target1", "0");
      waitForBlocked(1);
      second.send("BRPOPLPUSH", "blist", "target2", "0");
      waitForBlocked(2);
      c.call("LPUSH", "blist", "foo");
      assertTrue(first.readReply().startsWith("-WRONGTYPE"));
      assertEquals(bulk("foo"), second.readReply());
      assertEquals(array("foo"), c.call("LRANGE", "target2", "0", "-1"));
      assertEquals(integer(0), c.call("EXISTS", "blist"));
    }
  }

  /** Redis's "Linked LMOVEs": a move's destination serves its own waiter in the same pass. */
  @Test
  void aServedMoveServesTheWaitersOfItsDestination() throws Exception {
    try (RawClient first = server.connect();
        RawClient second = server.connect()) {
      first.send("BLMOVE", "list1", "list2", "RIGHT", "LEFT", "0");
      waitForBlocked(1);
      second.send("BLMOVE", "list2", "list3", "LEFT", "RIGHT", "0");
      waitForBlocked(2);
      c.call("RPUSH", "list1", "foo");
      assertEquals(bulk("foo"), first.readReply());
      assertEquals(bulk("foo"), second.readReply());
      assertEquals(array(), c.call("LRANGE", "list1", "0", "-1"));
      assertEquals(array(), c.call("LRANGE", "list2", "0", "-1"));
      assertEquals(array("foo"), c.call("LRANGE", "list3", "0", "-1"));
    }
  }

  /** Redis's "BLPOP when new key is moved into place": RENAME and COPY serve waiters too. */
  @Test
  void aListRenamedOrCopiedIntoPlaceServesItsWaiters() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("BLPOP", "foo", "0");
      waitForBlocked(1);
      c.call("LPUSH", "bob", "abc", "def", "hij");
      assertEquals(OK, c.call("RENAME", "bob", "foo"));
      assertEquals(array("foo", "hij"), waiter.readReply());
    }
    c.call("DEL", "foo");
    try (RawClient waiter = server.connect()) {
      waiter.send("BZPOPMIN", "zfoo", "0");
      waitForBlocked(1);
      c.call("ZADD", "zbob", "1", "one");
      assertEquals(integer(1), c.call("COPY", "zbob", "zfoo"));
      assertEquals(array("zfoo", "one", "1"), waiter.readReply());
    }
  }

  /** Redis's "client unblock tests": as a timeout would, or with an error; 0 if not blocked. */
  @Test
  void clientUnblockAnswersAsATimeoutOrAnError() throws Exception {
    try (RawClient waiter = server.connect()) {
      long id = Long.parseLong(waiter.call("CLIENT", "ID").substring(1).trim());
      waiter.send("BLPOP", "nothing", "0");
      waitForBlocked(1);
      assertEquals(integer(1), c.call("CLIENT", "UNBLOCK", Long.toString(id)));
      assertEquals("*-1\r\n", waiter.readReply());
      assertEquals(integer(0), c.call("CLIENT", "UNBLOCK", Long.toString(id)), "not blocked now");
      waiter.send("XREAD", "BLOCK", "0", "STREAMS", "nostream", "$");
      waitForBlocked(1);
      assertEquals(integer(1), c.call("CLIENT", "UNBLOCK", Long.toString(id), "ERROR"));
      assertEquals(error("UNBLOCKED client unblocked via CLIENT UNBLOCK"), waiter.readReply());
      assertEquals(bulk("PONG"), waiter.call("ECHO", "PONG"), "the connection goes on");
    }
    assertEquals(
        error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"),
        c.call("CLIENT", "UNBLOCK", "1", "LATER"));
  }

  /** A timeout is read as C's strtold reads it: hexadecimal too, infinity out of range. */
  @Test
  void timeoutsAreReadAsRedisReadsThem() throws Exception {
    // 7.0 overflowed into "negative"; 7.2 (Redis's "BLPOP: timeout value out of range") says so.
    String outOfRange =
        error(redis72() ? "ERR timeout is out of range" : "ERR timeout is negative");
    assertEquals(outOfRange, c.call("BLPOP", "q", "0x7FFFFFFFFFFFFF"));
    assertEquals(outOfRange, c.call("BLPOP", "q", "inf"));
    assertEquals(error("ERR timeout is negative"), c.call("BLPOP", "q", "-inf"));
    assertEquals(error("ERR timeout is not a float or out of range"), c.call("BLPOP", "q", " 1"));
    assertEquals(error("ERR timeout is not a float or out of range"), c.call("BLPOP", "q", "1d"));
    assertEquals(NIL_ARRAY, c.call("BLPOP", "q", "0x0.1"));
  }

  /** Redis's "XREAD: XADD + DEL + LPUSH should not awake client". */
  @Test
  void aKeyOfAnotherTypeDoesNotServeXread() throws Exception {
    try (RawClient waiter = server.connect()) {
      waiter.send("XREAD", "BLOCK", "20000", "STREAMS", "s1", "$");
      waitForBlocked(1);
      c.call("MULTI");
      c.call("XADD", "s1", "*", "old", "abcd1234");
      c.call("DEL", "s1");
      c.call("LPUSH", "s1", "foo", "bar");
      c.call("EXEC");
      c.call("DEL", "s1");
      c.call("XADD", "s1", "9-1", "new", "abcd1234");
      assertEquals(
          "*1\r\n*2\r\n$2\r\ns1\r\n*1\r\n*2\r\n$3\r\n9-1\r\n*2\r\n$3\r\nnew\r\n"
              + "$8\r\nabcd1234\r\n",
          waiter.readReply());
    }
  }

  /**
   * Redis's "Blocking XREADGROUP: key deleted", "key type changed with SET" and "flushed DB": a
   * group reader is told (7.2's NOGROUP and WRONGTYPE; 7.0 said UNBLOCKED).
   */
  @Test
  void aGroupReaderIsToldWhenItsStreamGoesOrChangesType() throws Exception {
    boolean redis72 = redis72();
    String[][] changes = {{"DEL", "ms"}, {"SET", "ms", "val1"}, {"FLUSHALL"}};
    String[] told =
        redis72 ? new String[] {"-NOGROUP", "-WRONGTYPE", "-NOGROUP"} : new String[] {"-UNBLOCKED"};
    for (int i = 0; i < changes.length; i++) {
      c.call("DEL", "ms");
      c.call("XADD", "ms", "666", "f", "v");
      c.call("XGROUP", "CREATE", "ms", "g", "$");
      try (RawClient waiter = server.connect()) {
        waiter.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "ms", ">");
        waitForBlocked(1);
        c.call(changes[i]);
        String reply = waiter.readReply();
        assertTrue(reply.startsWith(told[Math.min(i, told.length - 1)]), reply);
      }
      waitForBlocked(0);
    }
  }

  /** A transaction's pushes serve the waiters once it has run, from what it left. */
  @Test
  void waitersAreServedAfterATransactionFromWhatItLeft() throws Exception {
    try (RawClient first = server.connect();
        RawClient second = server.connect()) {
      first.send("BLPOP", "q", "0");
      waitForBlocked(1);
      second.send("BLPOP", "q", "0");
      waitForBlocked(2);
      c.call("MULTI");
      c.call("RPUSH", "q", "a", "b", "c");
      c.call("LPOP", "q");
      c.call("EXEC");
      assertEquals(array("q", "b"), first.readReply());
      assertEquals(array("q", "c"), second.readReply());
    }
  }

  private String infoField(String name) throws IOException {
    String info = c.call("INFO", "clients");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\r\\n" + name + ":(\\d+)\\r\\n").matcher(info);
    return m.find() ? m.group(1) : null;
  }

  /** Redis 7.2's counts of blocking keys, and of those a group reader also waits on to go. */
  @Test
  void blockingKeysAreCountedAsRedis72CountsThem() throws Exception {
    if (!redis72() && TargetServer.targetIsRedis()) {
      return; // 7.0 has no such fields
    }
    try (RawClient list = server.connect();
        RawClient group = server.connect()) {
      list.send("BLPOP", "s", "0");
      waitForBlocked(1);
      assertEquals("1", infoField("total_blocking_keys"));
      assertEquals("0", infoField("total_blocking_keys_on_nokey"));
      c.call("XADD", "other", "1-1", "f", "v");
      c.call("XGROUP", "CREATE", "other", "g", "$");
      group.send("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "other", ">");
      waitForBlocked(2);
      assertEquals("2", infoField("total_blocking_keys"));
      assertEquals("1", infoField("total_blocking_keys_on_nokey"));
      c.call("DEL", "other");
      assertTrue(group.readReply().startsWith("-NOGROUP"), "told its stream went");
      c.call("RPUSH", "s", "x");
      assertEquals(array("s", "x"), list.readReply());
      waitForBlocked(0);
      assertEquals("0", infoField("total_blocking_keys"));
    }
  }
}
