package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
