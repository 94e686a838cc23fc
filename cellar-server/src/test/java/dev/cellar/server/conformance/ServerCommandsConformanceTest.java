package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.CellarVersion;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Server commands: DBSIZE, FLUSHDB/FLUSHALL, TIME, COMMAND (as cluster-aware clients read it),
 * CONFIG GET/SET, INFO, SAVE/BGSAVE/BGREWRITEAOF and the SHUTDOWN forms that must not shut down.
 */
class ServerCommandsConformanceTest extends AbstractConformanceTest {

  @Test
  void flushallDeletesEveryKeyOfALargeKeyspace() throws IOException {
    // More keys than one page of the flush's walk (4096), with expiries among them.
    for (int batch = 0; batch < 10; batch++) {
      String[] mset = new String[1 + 2 * 1000];
      mset[0] = "MSET";
      for (int i = 0; i < 1000; i++) {
        mset[1 + 2 * i] = "flush:" + batch + ":" + i;
        mset[2 + 2 * i] = "v" + i;
      }
      assertEquals(OK, c.call(mset));
    }
    c.call("SET", "flush:ttl", "v", "EX", "100");
    assertEquals(integer(10_001), c.call("DBSIZE"));
    assertEquals(OK, c.call("FLUSHALL"));
    assertEquals(integer(0), c.call("DBSIZE"));
    assertEquals(NIL, c.call("GET", "flush:9:999"));
  }

  @Test
  void dbsizeAndFlush() throws IOException {
    assertEquals(integer(0), c.call("DBSIZE"));
    c.call("MSET", "a", "1", "b", "2", "c", "3");
    assertEquals(integer(3), c.call("DBSIZE"));
    assertEquals(OK, c.call("FLUSHDB"));
    assertEquals(integer(0), c.call("DBSIZE"));
    c.call("SET", "a", "1");
    assertEquals(OK, c.call("FLUSHDB", "SYNC"));
    c.call("SET", "a", "1");
    assertEquals(OK, c.call("FLUSHALL", "async"));
    assertEquals(NIL, c.call("GET", "a"));
    assertEquals(SYNTAX, c.call("FLUSHDB", "foo"));
    assertEquals(SYNTAX, c.call("FLUSHALL", "SYNC", "ASYNC"));
    assertEquals(arity("dbsize"), c.call("DBSIZE", "x"));
  }

  @Test
  void time() throws IOException {
    List<?> time = assertInstanceOf(List.class, c.callParsed("TIME"));
    assertEquals(2, time.size());
    long seconds = Long.parseLong((String) time.get(0));
    long micros = Long.parseLong((String) time.get(1));
    assertTrue(
        Math.abs(seconds - System.currentTimeMillis() / 1000) <= 5, "TIME seconds " + seconds);
    assertTrue(micros >= 0 && micros < 1_000_000, "TIME microseconds " + micros);
  }

  // ------------------------------------------------------------------ COMMAND

  @Test
  void commandCountMatchesCommand() throws IOException {
    long count = (Long) c.callParsed("COMMAND", "COUNT");
    List<?> all = assertInstanceOf(List.class, c.callParsed("COMMAND"));
    assertEquals(count, all.size());
    assertTrue(count >= 50, "COMMAND COUNT " + count);
  }

  @Test
  void commandInfoDescribesArityFlagsAndKeys() throws IOException {
    List<?> infos =
        assertInstanceOf(
            List.class, c.callParsed("COMMAND", "INFO", "get", "SET", "mset", "nosuch", "ping"));
    assertCommand(infos.get(0), "get", 2, List.of("readonly", "fast"), 1, 1, 1);
    assertCommand(infos.get(1), "set", -3, List.of("write", "denyoom"), 1, 1, 1);
    assertCommand(infos.get(2), "mset", -3, List.of("write", "denyoom"), 1, -1, 2);
    assertEquals(null, infos.get(3));
    assertCommand(infos.get(4), "ping", -1, List.of("fast"), 0, 0, 0);
    assertEquals(
        "*1\r\n$-1\r\n", c.call("COMMAND", "INFO", "nosuch"), "a null bulk, not a null array");
  }

  private static void assertCommand(
      Object info,
      String name,
      long arity,
      List<String> someFlags,
      long first,
      long last,
      long step) {
    List<?> fields =
        assertInstanceOf(List.class, info, () -> "COMMAND INFO for " + name + ": " + info);
    assertEquals(name, fields.get(0));
    assertEquals(arity, fields.get(1), name + " arity");
    List<?> flags = assertInstanceOf(List.class, fields.get(2));
    assertTrue(flags.containsAll(someFlags), name + " flags " + flags);
    assertEquals(List.of(first, last, step), fields.subList(3, 6), name + " key positions");
  }

  @Test
  void commandInfoWithoutNamesDescribesEveryCommand() throws IOException {
    assertEquals(c.callParsed("COMMAND"), c.callParsed("COMMAND", "INFO"));
  }

  @Test
  void commandGetkeys() throws IOException {
    assertEquals(array("a", "b"), c.call("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"));
    assertEquals(array("k"), c.call("COMMAND", "GETKEYS", "SET", "k", "v", "EX", "10"));
    assertEquals(array("a", "b", "c"), c.call("COMMAND", "GETKEYS", "del", "a", "b", "c"));
    assertEquals(
        error("ERR Invalid command specified"), c.call("COMMAND", "GETKEYS", "nosuch", "a"));
    assertEquals(
        error("ERR Invalid number of arguments specified for command"),
        c.call("COMMAND", "GETKEYS", "GET", "a", "b"));
    assertEquals(
        error("ERR The command has no key arguments"), c.call("COMMAND", "GETKEYS", "PING", "x"));
    assertEquals(
        error("ERR The command has no key arguments"),
        c.call("COMMAND", "GETKEYS", "ECHO", "a", "b"),
        "keys are looked for before arity");
  }

  /** COMMAND GETKEYS of commands whose keys move, as Redis 7's key specs find them. */
  @Test
  void commandGetkeysOfMovableKeys() throws IOException {
    String[][] cases = {
      {"*1\r\n$1\r\na\r\n", "eval", "x", "1", "a", "b"},
      {"*0\r\n", "eval", "x", "5", "a"},
      {"*0\r\n", "eval", "x", "0"},
      {"*0\r\n", "eval", "x", "y", "a"},
      {"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "fcall", "f", "2", "a", "b", "c"},
      {"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "zunion", "2", "a", "b"},
      {"-ERR Invalid arguments specified for command\r\n", "zunion", "3", "a", "b"},
      {"-ERR Invalid number of arguments specified for command\r\n", "zunion", "0"},
      {"*3\r\n$1\r\nd\r\n$1\r\na\r\n$1\r\nb\r\n", "zunionstore", "d", "2", "a", "b"},
      {"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "blmpop", "0", "2", "a", "b", "left"},
      {"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "sintercard", "2", "a", "b", "limit", "1"},
      {
        "*2\r\n$1\r\na\r\n$1\r\nb\r\n",
        "xreadgroup",
        "group",
        "g",
        "c",
        "streams",
        "a",
        "b",
        ">",
        ">"
      },
      {"*1\r\n$1\r\na\r\n", "xread", "streams", "a", "0", "0"},
      {"-ERR Invalid arguments specified for command\r\n", "xread", "count", "1", "block", "0"},
      {
        "*2\r\n$1\r\nk\r\n$1\r\ne\r\n",
        "sort",
        "k",
        "limit",
        "0",
        "1",
        "store",
        "d",
        "get",
        "x",
        "store",
        "e"
      },
      {"*1\r\n$1\r\nk\r\n", "sort_ro", "k", "by", "x"},
      {"*1\r\n$3\r\nkey\r\n", "memory", "usage", "key"},
      {"*1\r\n$1\r\ns\r\n", "xinfo", "stream", "s"},
      {"*1\r\n$1\r\ns\r\n", "object", "encoding", "s"},
      {
        "*3\r\n$1\r\nk\r\n$1\r\nd\r\n$1\r\ne\r\n",
        "georadius",
        "k",
        "0",
        "0",
        "1",
        "km",
        "store",
        "d",
        "storedist",
        "e"
      },
    };
    for (String[] one : cases) {
      String[] call = new String[one.length + 1];
      call[0] = "COMMAND";
      call[1] = "GETKEYS";
      System.arraycopy(one, 1, call, 2, one.length - 1);
      assertEquals(one[0], c.call(call), String.join(" ", call));
    }
  }

  /** COMMAND LIST and its filters (with no modules, and ACL categories Cellar can tell). */
  @Test
  void commandList() throws IOException {
    @SuppressWarnings("unchecked")
    List<Object> all = (List<Object>) c.callParsed("COMMAND", "LIST");
    assertTrue(all.contains("set") && all.contains("client|list") && all.contains("get"));
    assertEquals(SYNTAX, c.call("COMMAND", "LIST", "bad_arg"));
    String help = c.call("COMMAND", "HELP");
    assertTrue(help.contains("+LIST\r\n") && help.contains("+GETKEYS <full-command>"), help);
    assertEquals(SYNTAX, c.call("COMMAND", "LIST", "FILTERBY", "bad_arg"));
    assertEquals(SYNTAX, c.call("COMMAND", "LIST", "FILTERBY", "bad_arg", "bad_arg2"));
    assertEquals("*0\r\n", c.call("COMMAND", "LIST", "FILTERBY", "MODULE", "none"));
    assertEquals("*0\r\n", c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "non_existing"));
    @SuppressWarnings("unchecked")
    List<Object> scripting =
        (List<Object>) c.callParsed("COMMAND", "LIST", "FILTERBY", "ACLCAT", "scripting");
    assertTrue(
        scripting.contains("eval") && scripting.contains("script|kill"), scripting::toString);
    assertFalse(scripting.contains("set"));
    assertEquals(array("set"), c.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "set"));
    @SuppressWarnings("unchecked")
    List<Object> config =
        (List<Object>) c.callParsed("COMMAND", "LIST", "FILTERBY", "PATTERN", "config*");
    assertTrue(config.contains("config") && config.contains("config|get"), config::toString);
    @SuppressWarnings("unchecked")
    List<Object> re =
        (List<Object>) c.callParsed("COMMAND", "LIST", "FILTERBY", "PATTERN", "config|*re*");
    assertTrue(re.contains("config|resetstat") && !re.contains("config|get"), re::toString);
  }

  @Test
  void commandDocs() throws IOException {
    List<?> docs = assertInstanceOf(List.class, c.callParsed("COMMAND", "DOCS", "get"));
    assertEquals("get", docs.get(0));
    Map<Object, Object> doc = pairs(docs.get(1));
    assertEquals("string", doc.get("group"));
    assertInstanceOf(String.class, doc.get("summary"));
    assertEquals("1.0.0", doc.get("since"));
    assertEquals("*0\r\n", c.call("COMMAND", "DOCS", "nosuch"));
  }

  // ------------------------------------------------------------------ CONFIG

  @Test
  void configGet() throws IOException {
    assertEquals("*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", c.call("CONFIG", "GET", "maxmemory"));
    assertEquals(
        "*2\r\n$9\r\nMAXMEMORY\r\n$1\r\n0\r\n",
        c.call("CONFIG", "GET", "MAXMEMORY"),
        "a plain name comes back as asked");
    assertEquals("*0\r\n", c.call("CONFIG", "GET", "nosuch"));
    assertEquals(
        Map.of("maxmemory", "0", "maxmemory-policy", "noeviction"),
        pairs(c.callParsed("CONFIG", "GET", "maxmemory", "maxmemory-policy")));
    Map<Object, Object> glob = pairs(c.callParsed("CONFIG", "GET", "maxmemory*"));
    assertEquals("0", glob.get("maxmemory"));
    assertEquals("noeviction", glob.get("maxmemory-policy"));
    assertEquals(
        Integer.toString(server.port()), pairs(c.callParsed("CONFIG", "GET", "port")).get("port"));
    // Directives of Redis's that Cellar has no part of read as on a Redis that is no replica.
    assertEquals(
        Map.of("replicaof", "", "slaveof", ""),
        pairs(c.callParsed("CONFIG", "GET", "replicaof", "slaveof")));
    Map<Object, Object> of = pairs(c.callParsed("CONFIG", "GET", "*of"));
    assertEquals("", of.get("replicaof"));
    assertEquals("", of.get("slaveof"));
    assertEquals(Map.of("daemonize", "no"), pairs(c.callParsed("CONFIG", "GET", "daemonize")));
    assertEquals(
        Map.of("maxmemory-samples", "5", "lfu-log-factor", "10"),
        pairs(c.callParsed("CONFIG", "GET", "maxmemory-samples", "lfu-log-factor")),
        "tuning Cellar ignores reads at Redis's defaults");
    String refused = c.call("CONFIG", "SET", "replicaof", "127.0.0.1 6399");
    assertTrue(
        refused.startsWith(
            "-ERR CONFIG SET failed (possibly related to argument 'replicaof') - can't set"
                + " immutable config"),
        refused);
    assertEquals(Map.of("replicaof", ""), pairs(c.callParsed("CONFIG", "GET", "replicaof")));
  }

  @Test
  void configSet() throws IOException {
    try {
      assertEquals(OK, c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random"));
      assertEquals(
          "allkeys-random",
          pairs(c.callParsed("CONFIG", "GET", "maxmemory-policy")).get("maxmemory-policy"));
      assertEquals(
          OK, c.call("CONFIG", "SET", "maxmemory", "100mb", "maxmemory-policy", "noeviction"));
      assertEquals("104857600", pairs(c.callParsed("CONFIG", "GET", "maxmemory")).get("maxmemory"));
    } finally {
      c.call("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction");
    }
  }

  @Test
  void configSetErrors() throws IOException {
    assertEquals(
        error("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"),
        c.call("CONFIG", "SET", "nosuch", "1"));
    String failed = c.call("CONFIG", "SET", "maxmemory", "lots");
    assertTrue(
        failed.startsWith("-ERR CONFIG SET failed (possibly related to argument 'maxmemory') - "),
        failed);
    assertEquals(SYNTAX, c.call("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy"));
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    assertEquals("0", pairs(c.callParsed("CONFIG", "GET", "maxmemory")).get("maxmemory"));
  }

  /**
   * CONFIG SET of several settings is all or nothing, as in Redis: a setting named twice is refused
   * before anything is set, and a value refused puts back the ones set before it. Settings that
   * cannot change at run time take their own value (as tools set every setting back) and refuse
   * another.
   */
  @Test
  void configSetIsAllOrNothing() throws IOException {
    try {
      assertEquals(OK, c.call("CONFIG", "SET", "maxmemory", "10000002"));
      assertEquals(
          error(
              "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate"
                  + " parameter"),
          c.call("CONFIG", "SET", "maxmemory", "10000001", "maxmemory", "10000003"));
      String before =
          (String)
              pairs(c.callParsed("CONFIG", "GET", "maxmemory-clients")).get("maxmemory-clients");
      assertEquals(
          error(
              "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') -"
                  + " percentage argument must be less or equal to 100"),
          c.call(
              "CONFIG",
              "SET",
              "maxmemory",
              "10000001",
              "maxmemory-clients",
              "200%",
              "client-query-buffer-limit",
              "invalid"));
      assertEquals("10000002", pairs(c.callParsed("CONFIG", "GET", "maxmemory")).get("maxmemory"));
      assertEquals(
          before,
          pairs(c.callParsed("CONFIG", "GET", "maxmemory-clients")).get("maxmemory-clients"));

      // Directives Cellar ignores are put back too: one at Redis's default, one never given.
      Map<Object, Object> ignoredBefore =
          pairs(c.callParsed("CONFIG", "GET", "maxmemory-samples", "repl-timeout"));
      String refused =
          c.call(
              "CONFIG",
              "SET",
              "maxmemory-samples",
              "7",
              "repl-timeout",
              "33",
              "maxmemory-clients",
              "200%");
      assertTrue(refused.startsWith("-ERR CONFIG SET failed"), refused);
      assertEquals(
          ignoredBefore, pairs(c.callParsed("CONFIG", "GET", "maxmemory-samples", "repl-timeout")));

      String port = Integer.toString(server.port());
      assertEquals(OK, c.call("CONFIG", "SET", "port", port), "its own value");
      String immutable = c.call("CONFIG", "SET", "daemonize", "yes");
      assertTrue(
          immutable.startsWith("-ERR CONFIG SET failed (possibly related to argument 'daemonize')")
              && immutable.contains("immutable"),
          immutable);
    } finally {
      c.call("CONFIG", "SET", "maxmemory", "0");
    }
  }

  // ------------------------------------------------------------------ INFO

  @Test
  void infoSections() throws IOException {
    String all = (String) c.callParsed("INFO");
    assertTrue(all.startsWith("# Server\r\n"), all);
    assertTrue(all.contains("\r\nredis_version:"), all);
    assertTrue(all.contains("\r\n# Keyspace\r\n"), all);
    String serverSection = (String) c.callParsed("INFO", "server");
    assertTrue(serverSection.contains("\r\ntcp_port:" + server.port() + "\r\n"), serverSection);
    assertFalse(serverSection.contains("# Keyspace"), serverSection);
    if (!server.isRedis()) {
      assertTrue(
          serverSection.contains("\r\ncellar_version:" + CellarVersion.current() + "\r\n"),
          serverSection);
      assertTrue(
          CellarVersion.current().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"),
          "the project version, not a placeholder: " + CellarVersion.current());
    }
    assertEquals(bulk("# Keyspace\r\n"), c.call("INFO", "keyspace"));
    c.call("MSET", "a", "1", "b", "2");
    String keyspace = (String) c.callParsed("INFO", "KEYSPACE");
    assertTrue(keyspace.startsWith("# Keyspace\r\ndb0:keys=2,expires="), keyspace);
    String two = (String) c.callParsed("INFO", "clients", "keyspace");
    assertTrue(two.startsWith("# Clients\r\nconnected_clients:"), two);
    assertTrue(two.contains("\r\n\r\n# Keyspace\r\ndb0:keys=2,"), two);
    assertFalse(two.contains("# Server"), two);
  }

  // ------------------------------------------------------------------ persistence and lifecycle

  @Test
  void saveAndBackgroundSaves() throws Exception {
    c.call("SET", "k", "v");
    assertEquals(OK, c.call("SAVE"));
    assertEquals(simple("Background saving started"), c.call("BGSAVE"));
    assertEquals(SYNTAX, c.call("BGSAVE", "foo"));
    String rewrite = c.call("BGREWRITEAOF");
    assertTrue(
        rewrite.equals(simple("Background append only file rewriting started"))
            || rewrite.equals(simple("Background append only file rewriting scheduled")),
        rewrite);
    assertEquals(arity("save"), c.call("SAVE", "x"));
    assertEquals(bulk("v"), c.call("GET", "k"));
  }

  private long changesSinceSave() throws IOException {
    String persistence = (String) c.callParsed("INFO", "persistence");
    for (String line : persistence.split("\r\n")) {
      if (line.startsWith("rdb_changes_since_last_save:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1));
      }
    }
    throw new AssertionError("no rdb_changes_since_last_save in " + persistence);
  }

  /** SAVE, once a background save another test started has ended. */
  private void save() throws Exception {
    String reply = c.call("SAVE");
    for (int i = 0; i < 200 && reply.contains("in progress"); i++) {
      Thread.sleep(50);
      reply = c.call("SAVE");
    }
    assertEquals(OK, reply);
  }

  /**
   * Redis's "dirty" counter, on the commands where Cellar's count (records written) and Redis's
   * (changes made) agree: one per string written or key deleted, nothing for a no-op
   * (docs/server.md says where they differ).
   */
  @Test
  void changesSinceLastSaveAreCountedAsRedisCountsThem() throws Exception {
    save();
    assertEquals(0, changesSinceSave());
    String[][] steps = {
      {"1", "SET", "a", "1"},
      {"1", "SET", "a", "1"},
      {"0", "GET", "a"},
      {"1", "SETBIT", "b", "0", "0"},
      {"0", "SETBIT", "b", "0", "0"},
      {"1", "SETBIT", "b", "0", "1"},
      {"1", "BITFIELD", "f", "SET", "i5", "0", "0"},
      {"0", "BITFIELD", "f", "SET", "i5", "0", "0"},
      {"1", "BITFIELD", "f", "SET", "i5", "90", "0"},
      {"0", "LPOP", "l"},
      {"0", "DEL", "nokey"},
      {"1", "DEL", "a"},
      {"0", "SADD", "s", "m"},
      {"0", "SREM", "s", "absent"},
      {"0", "HDEL", "nohash", "f"},
      {"0", "PFADD", "hll", "x"},
      {"1", "PFADD", "hll", "z"},
      {"1", "PFCOUNT", "hll"}, // the cached count is refreshed: a change
      {"0", "PFCOUNT", "hll"},
    };
    c.call("PFADD", "hll", "x"); // made here: Redis counts a sketch's creation with its registers
    c.call("SADD", "s", "m"); // and a collection's creation is more than one record here
    long before = changesSinceSave();
    for (String[] step : steps) {
      c.call(java.util.Arrays.copyOfRange(step, 1, step.length));
      long after = changesSinceSave();
      assertEquals(
          Long.parseLong(step[0]), after - before, () -> String.join(" ", step).substring(2));
      before = after;
    }
    save();
    assertEquals(0, changesSinceSave());
  }

  /** WAIT and WAITAOF as a primary without replicas answers them. */
  @Test
  void waitAndWaitaofWithNoReplicas() throws Exception {
    c.call("SET", "k", "v");
    assertEquals(integer(0), c.call("WAIT", "0", "0"));
    long start = System.nanoTime();
    assertEquals(integer(0), c.call("WAIT", "1", "100"), "blocks for its timeout, then none");
    assertTrue(System.nanoTime() - start >= 90_000_000L, "WAIT 1 100 returned early");
    assertEquals(error("ERR timeout is negative"), c.call("WAIT", "1", "-1"));
    assertEquals(error("ERR timeout is not an integer or out of range"), c.call("WAIT", "1", "x"));
    assertEquals(error("ERR value is not an integer or out of range"), c.call("WAIT", "x", "0"));
    assertEquals(OK, c.call("MULTI"));
    assertEquals(simple("QUEUED"), c.call("WAIT", "1", "0"));
    assertEquals("*1\r\n:0\r\n", c.call("EXEC"), "a transaction never blocks");
    if (redis72()) { // 7.0 refused WAIT in scripts
      assertEquals(
          integer(0), c.call("EVAL", "return redis.pcall('wait', '1', '0')", "0"), "nor a script");
    }
    try (RawClient waiter = server.connect();
        RawClient admin = server.connect()) {
      String id = waiter.call("CLIENT", "ID").substring(1).trim();
      waiter.send("WAIT", "1", "0");
      waitForBlocked(1);
      assertEquals(integer(1), admin.call("CLIENT", "UNBLOCK", id));
      assertEquals(integer(0), waiter.readReply(), "WAIT 1 0 waits until unblocked");
    }
    if (redis72()) {
      assertEquals("*2\r\n:1\r\n:0\r\n", c.call("WAITAOF", "1", "0", "0"));
      assertEquals(
          error("ERR value is out of range, value must between 0 and 1"),
          c.call("WAITAOF", "2", "0", "0"));
      assertEquals(
          error("ERR value is out of range, must be positive"), c.call("WAITAOF", "1", "-1", "0"));
      start = System.nanoTime();
      assertEquals("*2\r\n:1\r\n:0\r\n", c.call("WAITAOF", "1", "1", "100"));
      assertTrue(System.nanoTime() - start >= 90_000_000L, "WAITAOF 1 1 100 returned early");
    }
  }

  /** MODULE answers as a server with no modules loaded; CONFIG HELP as Redis's. */
  @Test
  void noModulesAndConfigHelp() throws IOException {
    assertEquals("*0\r\n", c.call("MODULE", "LIST"));
    assertTrue(c.call("MODULE", "HELP").startsWith("*"));
    assertTrue(c.call("MODULE", "LOAD", "/nonexistent.so").startsWith("-ERR "));
    String help = c.call("CONFIG", "HELP");
    assertTrue(help.startsWith("*") && help.contains("+GET <pattern>\r\n"), help);
  }

  /** A server without cluster support says so, which is how cluster-aware clients find out. */
  @Test
  void clusterWithoutClusterSupport() throws IOException {
    String disabled = error("ERR This instance has cluster support disabled");
    assertEquals(disabled, c.call("CLUSTER", "INFO"));
    assertEquals(disabled, c.call("CLUSTER", "SLOTS"));
    assertEquals(disabled, c.call("CLUSTER", "HELP"));
    assertEquals(
        error("ERR unknown subcommand 'nosuch'. Try CLUSTER HELP."), c.call("CLUSTER", "nosuch"));
    assertEquals(arity("cluster|info"), c.call("CLUSTER", "INFO", "x"));
    assertEquals(
        java.util.Set.of("client|help", "cluster|help"), // in no set order in Redis
        new java.util.HashSet<>(
            (List<?>) c.callParsed("COMMAND", "LIST", "FILTERBY", "PATTERN", "cl*help")));
    String inScript = c.call("EVAL", "return redis.pcall('cluster', 'reset')", "0");
    assertTrue(inScript.contains("This Redis command is not allowed from script"), inScript);
    assertEquals(
        error(
            "ERR wrong number of arguments script: "
                + sha1Hex("return redis.sha1hex()")
                + ", on @user_script:1."),
        c.call("EVAL", "return redis.sha1hex()", "0"));
  }

  @Test
  void shutdownFormsThatDoNotShutDown() throws IOException {
    assertEquals(error("ERR No shutdown in progress."), c.call("SHUTDOWN", "ABORT"));
    assertEquals(SYNTAX, c.call("SHUTDOWN", "FOO"));
    assertEquals(SYNTAX, c.call("SHUTDOWN", "NOSAVE", "ABORT"));
    assertEquals(SYNTAX, c.call("SHUTDOWN", "SAVE", "NOSAVE"));
    assertEquals("+PONG\r\n", c.call("PING"));
  }

  /** A RESP2 flat array of alternating names and values, as a map. */
  static Map<Object, Object> pairs(Object reply) {
    List<?> list =
        assertInstanceOf(List.class, reply, () -> "expected name/value pairs, got " + reply);
    assertEquals(0, list.size() % 2, "odd number of elements in " + list);
    Map<Object, Object> map = new HashMap<>();
    for (int i = 0; i < list.size(); i += 2) {
      map.put(list.get(i), list.get(i + 1));
    }
    return map;
  }
}
