package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Keyspace notifications ({@code notify-keyspace-events}): which events each command publishes, on
 * which channels and in which order, compared with Redis's exact sequence. A subscriber listens on
 * {@code __key*__:*} while another connection runs a script of commands, each written so that some
 * succeed and some change nothing; a message on a sentinel channel ends the sequence.
 */
class KeyspaceEventsConformanceTest extends AbstractConformanceTest {
  @AfterEach
  void notificationsOff() throws IOException {
    try (RawClient admin = server.connect()) {
      admin.call("CONFIG", "SET", "notify-keyspace-events", "");
    }
  }

  /** The two messages one event publishes: on the key's channel, then on the event's. */
  private static List<String> event(String name, String key) {
    return List.of("__keyspace@0__:" + key + " " + name, "__keyevent@0__:" + name + " " + key);
  }

  private static List<String> events(List<List<String>> each) {
    List<String> all = new ArrayList<>();
    each.forEach(all::addAll);
    return all;
  }

  /** Runs the commands on a second connection and returns what the subscriber {@link #c} got. */
  private List<String> published(String flags, String[]... commands) throws IOException {
    try (RawClient admin = server.connect()) {
      assertEquals(OK, admin.call("CONFIG", "SET", "notify-keyspace-events", flags));
      c.send("PSUBSCRIBE", "__key*__:*");
      c.readReply();
      c.send("SUBSCRIBE", "sentinel");
      c.readReply();
      for (String[] command : commands) {
        admin.call(command);
      }
      admin.call("PUBLISH", "sentinel", "done");
    }
    List<String> got = new ArrayList<>();
    while (true) {
      @SuppressWarnings("unchecked")
      List<Object> message = (List<Object>) RawClient.parse(c.readReply());
      if (message.get(0).equals("message")) {
        return got;
      }
      got.add(message.get(2) + " " + message.get(3));
    }
  }

  /** Lowering maxmemory below what is used evicts at once, as Redis's CONFIG SET does. */
  @Test
  void loweringMaxmemoryEvictsAtOnce() throws IOException {
    try {
      List<String> got =
          published(
              "Ee",
              new String[] {"FLUSHALL"},
              new String[] {"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"},
              new String[] {"SET", "foo", "bar"},
              new String[] {"CONFIG", "SET", "maxmemory", "1"});
      assertEquals(List.of("__keyevent@0__:evicted foo"), got);
    } finally {
      try (RawClient admin = server.connect()) {
        admin.call("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction");
      }
    }
  }

  @Test
  void aTransactionPublishesItsCommandsEventsInOrderAndADiscardedOneNone() throws IOException {
    List<String> got =
        published(
            "KEA",
            new String[] {"MULTI"},
            new String[] {"SET", "t", "1"},
            new String[] {"INCR", "t"},
            new String[] {"INCRBY", "t", "x"},
            new String[] {"DEL", "t"},
            new String[] {"EXEC"},
            new String[] {"MULTI"},
            new String[] {"SET", "u", "1"},
            new String[] {"DISCARD"},
            new String[] {"SET", "w", "1"},
            new String[] {"WATCH", "w"},
            new String[] {"SET", "w", "2"},
            new String[] {"MULTI"},
            new String[] {"SET", "v", "1"},
            new String[] {"EXEC"});
    assertEquals(
        events(
            List.of(
                event("set", "t"),
                event("incrby", "t"),
                event("del", "t"),
                event("set", "w"),
                event("set", "w"))),
        got);
  }

  @Test
  void everyCommandPublishesRedisEventsAndNoneWhenItChangesNothing() throws IOException {
    List<String> got =
        published(
            "KEA",
            new String[] {"SET", "a", "1"},
            new String[] {"SET", "a", "2", "EX", "100"},
            new String[] {"SET", "a", "3", "NX"},
            new String[] {"SET", "b", "1", "XX"},
            new String[] {"SETNX", "a", "x"},
            new String[] {"SETNX", "b", "1"},
            new String[] {"SETEX", "c", "100", "v"},
            new String[] {"GETSET", "c", "w"},
            new String[] {"APPEND", "c", "x"},
            new String[] {"SETRANGE", "c", "0", ""},
            new String[] {"SETRANGE", "c", "1", "z"},
            new String[] {"INCR", "n"},
            new String[] {"INCRBY", "n", "5"},
            new String[] {"DECR", "n"},
            new String[] {"INCRBYFLOAT", "f", "1.5"},
            new String[] {"MSET", "m1", "1", "m2", "2"},
            new String[] {"MSETNX", "m1", "x", "q", "y"},
            new String[] {"EXPIRE", "m1", "100"},
            new String[] {"EXPIRE", "m1", "100", "NX"},
            new String[] {"PERSIST", "m1"},
            new String[] {"PERSIST", "m1"},
            new String[] {"EXPIRE", "m2", "-1"},
            new String[] {"RENAME", "m1", "r1"},
            new String[] {"RENAMENX", "r1", "a"},
            new String[] {"GETEX", "a", "PERSIST"},
            new String[] {"GETEX", "a", "EX", "50"},
            new String[] {"GETDEL", "a"},
            new String[] {"GETDEL", "a"},
            new String[] {"DEL", "b", "c", "nosuch"},
            new String[] {"UNLINK", "r1"},
            new String[] {"GET", "nosuch"});
    assertEquals(
        events(
            List.of(
                event("set", "a"),
                event("set", "a"),
                event("expire", "a"),
                event("set", "b"),
                event("set", "c"),
                event("expire", "c"),
                event("set", "c"),
                event("append", "c"),
                event("setrange", "c"),
                event("incrby", "n"),
                event("incrby", "n"),
                event("incrby", "n"),
                event("incrbyfloat", "f"),
                event("set", "m1"),
                event("set", "m2"),
                event("expire", "m1"),
                event("persist", "m1"),
                event("del", "m2"),
                event("rename_from", "m1"),
                event("rename_to", "r1"),
                event("persist", "a"),
                event("expire", "a"),
                event("del", "a"),
                event("del", "b"),
                event("del", "c"),
                event("del", "r1"))),
        got);
  }

  @Test
  void newKeysAreAnnouncedFirstWhenAsked() throws IOException {
    List<String> got =
        published(
            "KEg$n",
            new String[] {"SET", "x", "1"},
            new String[] {"SET", "x", "2"},
            new String[] {"MSET", "y", "1", "y", "2"},
            new String[] {"INCR", "z"},
            new String[] {"APPEND", "w", "a"},
            new String[] {"GETSET", "g", "v"},
            new String[] {"SET", "e", "1", "EX", "10"},
            new String[] {"RENAME", "x", "x2"},
            new String[] {"COPY", "x2", "x3"},
            new String[] {"COPY", "x2", "x3"},
            new String[] {"COPY", "x2", "x3", "REPLACE"});
    assertEquals(
        events(
            List.of(
                event("new", "x"),
                event("set", "x"),
                event("set", "x"),
                event("new", "y"),
                event("set", "y"),
                event("set", "y"),
                event("new", "z"),
                event("incrby", "z"),
                event("new", "w"),
                event("append", "w"),
                event("new", "g"),
                event("set", "g"),
                event("new", "e"),
                event("set", "e"),
                event("expire", "e"),
                event("new", "x2"),
                event("rename_from", "x"),
                event("rename_to", "x2"),
                event("new", "x3"),
                event("copy_to", "x3"),
                event("new", "x3"),
                event("copy_to", "x3"))),
        got);
  }

  @Test
  void bitCommandsPublishSetbitAndBitopPublishesSetOrDel() throws IOException {
    List<String> got =
        published(
            "KEA",
            new String[] {"SETBIT", "b", "3", "1"},
            new String[] {"SETBIT", "b", "3", "1"},
            new String[] {"SETBIT", "b", "3", "0"},
            new String[] {"BITFIELD", "b", "SET", "u4", "0", "9"},
            new String[] {"BITFIELD", "b", "OVERFLOW", "FAIL", "INCRBY", "u4", "0", "100"},
            new String[] {"BITFIELD", "b", "GET", "u4", "0"},
            new String[] {"BITOP", "NOT", "n", "b"},
            new String[] {"BITOP", "AND", "n", "nothing"});
    assertEquals(
        events(
            List.of(
                event("setbit", "b"),
                event("setbit", "b"),
                event("setbit", "b"),
                event("set", "n"),
                event("del", "n"))),
        got);
  }

  /**
   * Each storing command names itself, as Redis does (Cellar published {@code zstore} for all of
   * them); GEOADD is ZADD, HyperLogLog writes are {@code pfadd}.
   */
  @Test
  void storingCommandsPublishTheirOwnNames() throws IOException {
    List<String> got =
        published(
            "KEA",
            new String[] {"ZADD", "z", "1", "a"},
            new String[] {"ZUNIONSTORE", "u", "1", "z"},
            new String[] {"ZINTERSTORE", "u", "1", "z"},
            new String[] {"ZDIFFSTORE", "d", "2", "z", "u"},
            new String[] {"ZRANGESTORE", "r", "z", "0", "-1"},
            new String[] {"GEOADD", "g", "13.361389", "38.115556", "Palermo"},
            new String[] {
              "GEOSEARCHSTORE", "s", "g", "FROMLONLAT", "13", "38", "BYRADIUS", "100", "km"
            },
            new String[] {"GEORADIUS", "g", "13", "38", "100", "km", "STORE", "s2"},
            new String[] {"PFADD", "h", "x"},
            new String[] {"PFMERGE", "h2", "h"});
    assertEquals(
        events(
            List.of(
                event("zadd", "z"),
                event("zunionstore", "u"),
                event("zinterstore", "u"),
                event("zrangestore", "r"),
                event("zadd", "g"),
                event("geosearchstore", "s"),
                event("georadiusstore", "s2"),
                event("pfadd", "h"),
                event("pfadd", "h2"))),
        got);
  }

  /** A consumer a read or a claim makes is announced as XGROUP CREATECONSUMER announces one. */
  @Test
  void consumersMadeByReadsAndClaimsAreAnnounced() throws IOException {
    List<String> got =
        published(
            "KEA",
            new String[] {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"},
            new String[] {"XGROUP", "CREATECONSUMER", "s", "g", "Bob"},
            new String[] {"XADD", "s", "1-1", "f", "v"},
            new String[] {"XREADGROUP", "GROUP", "g", "Alice", "STREAMS", "s", ">"},
            new String[] {"XCLAIM", "s", "g", "Mike", "0", "1-1", "FORCE"},
            new String[] {"XGROUP", "DELCONSUMER", "s", "g", "Lee"},
            new String[] {"XAUTOCLAIM", "s", "g", "Bob", "0", "1-1"},
            new String[] {"XAUTOCLAIM", "s", "g", "Zoe", "0", "1-1"});
    assertEquals(
        events(
            List.of(
                event("xgroup-create", "s"),
                event("xgroup-createconsumer", "s"),
                event("xadd", "s"),
                event("xgroup-createconsumer", "s"),
                event("xgroup-createconsumer", "s"),
                event("xgroup-createconsumer", "s"))),
        got);
  }

  /**
   * Keys whose time passes are reclaimed in the background: each announces itself with an {@code
   * expired} event and DBSIZE drops, with no command touching them.
   */
  @Test
  void expiredKeysAreReclaimedInTheBackgroundAndAnnounced() throws IOException {
    try (RawClient admin = server.connect()) {
      assertEquals(OK, admin.call("CONFIG", "SET", "notify-keyspace-events", "Ex"));
      c.send("SUBSCRIBE", "__keyevent@0__:expired");
      c.readReply();
      java.util.Set<String> due = new java.util.HashSet<>();
      for (int i = 0; i < 200; i++) {
        admin.call("SET", "e" + i, "v", "PX", Integer.toString(100 + i));
        due.add("e" + i);
      }
      admin.call("SET", "lives", "v", "EX", "1000");
      admin.call("SET", "forever", "v");
      java.util.Set<String> announced = new java.util.HashSet<>();
      while (announced.size() < due.size()) {
        @SuppressWarnings("unchecked")
        List<Object> message = (List<Object>) RawClient.parse(c.readReply());
        assertEquals(List.of("message", "__keyevent@0__:expired"), message.subList(0, 2));
        announced.add((String) message.get(2));
      }
      assertEquals(due, announced);
      assertEquals(integer(2), admin.call("DBSIZE"), "only the live keys are counted");
    }
  }

  /** Reads that find no key publish {@code keymiss}; writes, OBJECT and KEYS-like scans do not. */
  @Test
  void readsThatFindNoKeyPublishKeymiss() throws IOException {
    List<String> got =
        published(
            "Em",
            new String[] {"SET", "here", "v"},
            new String[] {"GET", "m1"},
            new String[] {"GET", "here"},
            new String[] {"MGET", "m2", "here", "m3"},
            new String[] {"STRLEN", "m4"},
            new String[] {"GETRANGE", "m5", "0", "1"},
            new String[] {"EXISTS", "m6", "here"},
            new String[] {"TOUCH", "m7"},
            new String[] {"TYPE", "m8"},
            new String[] {"TTL", "m9"},
            new String[] {"PEXPIRETIME", "m10"},
            new String[] {"GETEX", "m11"},
            new String[] {"GETDEL", "m12"},
            new String[] {"GETSET", "m13", "v"},
            new String[] {"SET", "m14", "v", "GET"},
            new String[] {"GETBIT", "m15", "3"},
            new String[] {"BITCOUNT", "m16"},
            new String[] {"BITPOS", "m17", "1"},
            new String[] {"BITFIELD", "m18", "GET", "u8", "0"},
            new String[] {"BITFIELD_RO", "m19", "GET", "u8", "0"},
            new String[] {"LCS", "m20", "here"},
            new String[] {"COPY", "m21", "x"},
            new String[] {"BITOP", "OR", "dest", "here", "m22"},
            // Writes and introspection publish no keymiss.
            new String[] {"INCR", "w1"},
            new String[] {"APPEND", "w2", "x"},
            new String[] {"SETNX", "w3", "x"},
            new String[] {"SETBIT", "w4", "1", "1"},
            new String[] {"BITFIELD", "w5", "SET", "u8", "0", "1"},
            new String[] {"EXPIRE", "w6", "10"},
            new String[] {"PERSIST", "w7"},
            new String[] {"DEL", "w8"},
            new String[] {"OBJECT", "ENCODING", "w9"},
            new String[] {"KEYS", "w10*"});
    List<String> expected = new ArrayList<>();
    for (String key :
        List.of(
            "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11", "m12", "m13", "m14",
            "m15", "m16", "m17", "m18", "m19", "m20", "m21", "m22")) {
      expected.add("__keyevent@0__:keymiss " + key);
    }
    assertEquals(expected, got);
  }

  @Test
  void onlyTheChosenClassesAndChannelKindsArePublished() throws IOException {
    // Key-space channel only, generic events only: SET is a string event and publishes nothing.
    List<String> got =
        published(
            "Kg",
            new String[] {"SET", "k", "v"},
            new String[] {"EXPIRE", "k", "100"},
            new String[] {"DEL", "k"});
    assertEquals(List.of("__keyspace@0__:k expire", "__keyspace@0__:k del"), got);
  }

  @Test
  void theSettingReadsBackInRedisOrderAndRefusesUnknownClasses() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "notify-keyspace-events", "KEA"));
    assertEquals(
        array("notify-keyspace-events", "AKE"), c.call("CONFIG", "GET", "notify-keyspace-events"));
    assertEquals(OK, c.call("CONFIG", "SET", "notify-keyspace-events", "Ex$g"));
    assertEquals(
        array("notify-keyspace-events", "g$xE"), c.call("CONFIG", "GET", "notify-keyspace-events"));
    assertEquals(
        error(
            "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') -"
                + " Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
        c.call("CONFIG", "SET", "notify-keyspace-events", "KEQ"));
    assertEquals(
        array("notify-keyspace-events", "g$xE"), c.call("CONFIG", "GET", "notify-keyspace-events"));
  }
}
