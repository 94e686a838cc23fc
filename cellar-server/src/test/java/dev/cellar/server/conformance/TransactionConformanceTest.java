package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH: queueing, errors at queueing (which discard the
 * transaction) and at run time (which do not), watched keys written by another client, by the
 * watching client itself, deleted or expired, and the transaction's view of its own writes.
 */
class TransactionConformanceTest extends AbstractConformanceTest {
  private static final String QUEUED = "+QUEUED\r\n";
  private static final String NULL_ARRAY = "*-1\r\n";

  private void queue(String... command) throws IOException {
    assertEquals(QUEUED, c.call(command), String.join(" ", command));
  }

  @Test
  void commandsRunInOrderAndReplyInOneArray() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "a", "1");
    queue("INCR", "a");
    queue("GET", "a");
    queue("APPEND", "b", "xy");
    queue("EXISTS", "a", "b", "c");
    queue("DEL", "b");
    queue("DBSIZE");
    assertEquals("*7\r\n+OK\r\n:2\r\n$1\r\n2\r\n:2\r\n:2\r\n:1\r\n:1\r\n", c.call("EXEC"));
    assertEquals(bulk("2"), c.call("GET", "a"));
    assertEquals(integer(0), c.call("EXISTS", "b"));
    assertEquals(OK, c.call("MULTI"));
    assertEquals("*0\r\n", c.call("EXEC"), "an empty transaction");
  }

  @Test
  void aCommandFailingInsideExecLeavesTheOthersApplied() throws IOException {
    c.call("SET", "s", "text");
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "t", "1");
    queue("INCR", "s");
    queue("INCR", "t");
    queue("SET", "u", "v", "EX", "0");
    assertEquals(
        "*4\r\n+OK\r\n" + NOT_INTEGER + ":2\r\n-ERR invalid expire time in 'set' command\r\n",
        c.call("EXEC"));
    assertEquals(bulk("2"), c.call("GET", "t"));
    assertEquals(bulk("text"), c.call("GET", "s"));
  }

  @Test
  void anErrorWhileQueueingDiscardsTheWholeTransaction() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "q", "1");
    assertEquals(arity("incr"), c.call("INCR"));
    assertTrue(c.call("NOSUCHCOMMAND", "x").startsWith("-ERR unknown command 'NOSUCHCOMMAND'"));
    queue("SET", "r", "2");
    assertEquals(
        "-EXECABORT Transaction discarded because of previous errors.\r\n", c.call("EXEC"));
    assertEquals(NIL, c.call("GET", "q"));
    assertEquals(NIL, c.call("GET", "r"));
    assertEquals(error("ERR EXEC without MULTI"), c.call("EXEC"), "the transaction is gone");
  }

  /**
   * A container's subcommand with the wrong number of arguments, or one that does not exist, is
   * refused when queued, as a command of the wrong arity is, and the EXEC aborts.
   */
  @Test
  void aSubcommandsArityIsCheckedWhileQueueing() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "q", "1");
    assertEquals(arity("config|get"), c.call("CONFIG", "GET"));
    assertEquals(arity("xgroup|destroy"), c.call("XGROUP", "DESTROY", "k", "g", "extra"));
    assertEquals(arity("object|encoding"), c.call("OBJECT", "ENCODING"));
    assertEquals(
        error("ERR unknown subcommand 'nosuch'. Try CLIENT HELP."), c.call("CLIENT", "nosuch"));
    queue("CONFIG", "GET", "maxmemory");
    queue("XINFO", "STREAM", "nosuchkey");
    assertEquals(
        "-EXECABORT Transaction discarded because of previous errors.\r\n", c.call("EXEC"));
    assertEquals(NIL, c.call("GET", "q"));
  }

  @Test
  void misuseIsRefusedWithRedisErrors() throws IOException {
    assertEquals(error("ERR EXEC without MULTI"), c.call("EXEC"));
    assertEquals(error("ERR DISCARD without MULTI"), c.call("DISCARD"));
    assertEquals(OK, c.call("MULTI"));
    assertEquals(error("ERR MULTI calls can not be nested"), c.call("MULTI"));
    assertEquals(error("ERR WATCH inside MULTI is not allowed"), c.call("WATCH", "k"));
    queue("SET", "k", "v");
    assertEquals("*1\r\n+OK\r\n", c.call("EXEC"), "neither error dooms the transaction");
    assertEquals(arity("watch"), c.call("WATCH"));
    assertEquals(arity("multi"), c.call("MULTI", "x"));
  }

  @Test
  void discardForgetsTheQueueAndTheWatchedKeys() throws IOException {
    c.call("WATCH", "w");
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "d", "1");
    assertEquals(OK, c.call("DISCARD"));
    assertEquals(NIL, c.call("GET", "d"));
    try (RawClient other = server.connect()) {
      other.call("SET", "w", "changed");
    }
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "d", "2");
    assertEquals("*1\r\n+OK\r\n", c.call("EXEC"), "DISCARD unwatched w");
  }

  @Test
  void aWatchedKeyWrittenByAnotherClientFailsExec() throws IOException {
    c.call("SET", "w", "0");
    assertEquals(OK, c.call("WATCH", "w", "absent"));
    try (RawClient other = server.connect()) {
      other.call("SET", "w", "1");
    }
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "w", "mine");
    queue("SET", "side", "effect");
    assertEquals(NULL_ARRAY, c.call("EXEC"));
    assertEquals(bulk("1"), c.call("GET", "w"));
    assertEquals(NIL, c.call("GET", "side"), "nothing of a failed transaction is applied");
    // The watch ended with EXEC: the same transaction now runs.
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "w", "mine");
    assertEquals("*1\r\n+OK\r\n", c.call("EXEC"));
  }

  @Test
  void writesOfEveryKindTouchAWatchedKey() throws IOException {
    String[][] writes = {
      {"SET", "w", "same"}, // the same value again still counts
      {"DEL", "w"},
      {"EXPIRE", "w", "100"},
      {"APPEND", "w", "x"},
      {"RENAME", "v", "w"},
      {"FLUSHALL"},
    };
    for (String[] write : writes) {
      c.call("SET", "w", "same");
      c.call("SET", "v", "other");
      assertEquals(OK, c.call("WATCH", "w"));
      try (RawClient other = server.connect()) {
        other.call(write);
      }
      assertEquals(OK, c.call("MULTI"));
      queue("PING");
      assertEquals(NULL_ARRAY, c.call("EXEC"), String.join(" ", write));
    }
  }

  @Test
  void theWatchingClientsOwnWritesAndExpiryCountToo() throws IOException, InterruptedException {
    c.call("SET", "own", "1");
    assertEquals(OK, c.call("WATCH", "own"));
    c.call("INCR", "own");
    assertEquals(OK, c.call("MULTI"));
    queue("GET", "own");
    assertEquals(NULL_ARRAY, c.call("EXEC"));

    c.call("SET", "brief", "1", "PX", "100");
    assertEquals(OK, c.call("WATCH", "brief"));
    Thread.sleep(250);
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "after", "1");
    assertEquals(NULL_ARRAY, c.call("EXEC"), "a watched key that expired counts as changed");

    c.call("SET", "kept", "1");
    assertEquals(OK, c.call("WATCH", "kept"));
    assertEquals(bulk("1"), c.call("GET", "kept"));
    assertEquals(OK, c.call("MULTI"));
    queue("GET", "kept");
    assertEquals("*1\r\n$1\r\n1\r\n", c.call("EXEC"), "a read changes nothing");
  }

  @Test
  void unwatchForgetsTheWatchedKeys() throws IOException {
    assertEquals(OK, c.call("WATCH", "u"));
    try (RawClient other = server.connect()) {
      other.call("SET", "u", "1");
    }
    assertEquals(OK, c.call("UNWATCH"));
    assertEquals(OK, c.call("MULTI"));
    queue("INCR", "u");
    assertEquals("*1\r\n:2\r\n", c.call("EXEC"));
  }

  @Test
  void resp3AnswersAFailedExecWithNull() throws IOException {
    c.call("HELLO", "3");
    c.call("SET", "w", "0");
    assertEquals(OK, c.call("WATCH", "w"));
    try (RawClient other = server.connect()) {
      other.call("SET", "w", "1");
    }
    assertEquals(OK, c.call("MULTI"));
    queue("GET", "w");
    assertEquals("_\r\n", c.call("EXEC"));
  }

  @Test
  void resetEndsATransaction() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "gone", "1");
    assertEquals(simple("RESET"), c.call("RESET"));
    assertEquals(error("ERR EXEC without MULTI"), c.call("EXEC"));
    assertEquals(NIL, c.call("GET", "gone"));
  }

  @Test
  void clientListShowsATransactionInProgress() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "a", "1");
    queue("SET", "b", "2");
    try (RawClient other = server.connect()) {
      String list = other.call("CLIENT", "LIST");
      assertTrue(list.contains(" flags=x "), list);
      assertTrue(list.contains(" multi=2 "), list);
    }
    c.call("DISCARD");
  }

  @Test
  void aTransactionSeesItsOwnWritesAndKeysCreatedInIt() throws IOException {
    c.call("MSET", "k1", "a", "k2", "b");
    assertEquals(OK, c.call("MULTI"));
    queue("SET", "k3", "c");
    queue("DEL", "k1");
    queue("DBSIZE");
    queue("KEYS", "k*");
    queue("EXISTS", "k1", "k2", "k3");
    queue("GETDEL", "k3");
    queue("DBSIZE");
    String reply = c.call("EXEC");
    assertTrue(
        reply.startsWith("*7\r\n+OK\r\n:1\r\n:2\r\n*2\r\n"), "DBSIZE and KEYS see k3: " + reply);
    assertTrue(reply.endsWith(":2\r\n$1\r\nc\r\n:1\r\n"), reply);
    assertEquals(integer(1), c.call("DBSIZE"));
  }
}
