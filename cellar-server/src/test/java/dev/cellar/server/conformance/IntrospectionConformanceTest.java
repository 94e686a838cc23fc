package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What operators' tools read: SLOWLOG, LATENCY, MONITOR, CLIENT LIST/KILL/NO-EVICT, MEMORY and the
 * INFO fields monitoring agents parse, in Redis's reply shapes (checked against redis-server with
 * {@code -Dconformance.target=redis}).
 */
class IntrospectionConformanceTest extends AbstractConformanceTest {

  @AfterEach
  void restoreSettings() throws IOException {
    try (RawClient admin = server.connect()) {
      admin.call(
          "CONFIG",
          "SET",
          "slowlog-log-slower-than",
          "10000",
          "slowlog-max-len",
          "128",
          "latency-monitor-threshold",
          "0");
      admin.call("SLOWLOG", "RESET");
      admin.call("LATENCY", "RESET");
    }
  }

  // ------------------------------------------------------------------ SLOWLOG

  /** INFO's CPU section has Redis's six fields, seconds with six decimals, in the default INFO. */
  @Test
  void infoCpuHasRedisFields() throws IOException {
    c.call("SET", "k", "v");
    String cpu = c.call("INFO", "cpu");
    for (String field :
        List.of(
            "used_cpu_sys",
            "used_cpu_user",
            "used_cpu_sys_children",
            "used_cpu_user_children",
            "used_cpu_sys_main_thread",
            "used_cpu_user_main_thread")) {
      assertTrue(cpu.matches("(?s).*\\r\\n" + field + ":[0-9]+\\.[0-9]{6}\\r\\n.*"), cpu);
    }
    assertTrue(c.call("INFO").contains("# CPU\r\nused_cpu_sys:"));
    String replication = c.call("INFO", "replication");
    for (String field : List.of("role:master", "connected_slaves:0", "master_repl_offset:")) {
      assertTrue(replication.contains("\r\n" + field), replication);
    }
  }

  @Test
  void slowlogEntriesHaveRedisSixFields() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
    assertEquals(OK, c.call("CLIENT", "SETNAME", "auditor"));
    assertEquals(OK, c.call("SLOWLOG", "RESET"));
    c.call("SET", "k", "v");
    List<?> entries = assertInstanceOf(List.class, c.callParsed("SLOWLOG", "GET", "1"));
    assertEquals(1, entries.size(), entries.toString());
    List<?> entry = assertInstanceOf(List.class, entries.get(0));
    assertEquals(6, entry.size(), entry.toString());
    assertInstanceOf(Long.class, entry.get(0));
    long time = (Long) entry.get(1);
    assertTrue(Math.abs(time - System.currentTimeMillis() / 1000) <= 5, "entry time " + time);
    assertTrue((Long) entry.get(2) >= 0, "duration " + entry.get(2));
    assertEquals(List.of("SET", "k", "v"), entry.get(3));
    assertEquals(clientField(c, "addr"), entry.get(4));
    assertEquals("auditor", entry.get(5));
  }

  @Test
  void slowlogCutsLongCommandsAsRedisDoes() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
    List<String> args = new ArrayList<>(List.of("MSET"));
    for (int i = 0; i < 20; i++) {
      args.add("key" + i);
      args.add(i == 0 ? "x".repeat(200) : "v");
    }
    c.call(args.toArray(String[]::new));
    List<?> entry = (List<?>) ((List<?>) c.callParsed("SLOWLOG", "GET", "1")).get(0);
    List<?> argv = (List<?>) entry.get(3);
    assertEquals(32, argv.size(), argv.toString());
    assertEquals("MSET", argv.get(0));
    assertEquals("x".repeat(128) + "... (72 more bytes)", argv.get(2));
    assertEquals("... (10 more arguments)", argv.get(31));
  }

  @Test
  void slowlogLengthResetAndLimits() throws IOException {
    assertEquals(
        OK, c.call("CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "3"));
    for (int i = 0; i < 10; i++) {
      c.call("PING");
    }
    assertEquals(integer(3), c.call("SLOWLOG", "LEN"));
    assertEquals(3, ((List<?>) c.callParsed("SLOWLOG", "GET", "-1")).size());
    assertEquals(OK, c.call("SLOWLOG", "RESET"));
    assertEquals(
        integer(1), c.call("SLOWLOG", "LEN"), "the RESET itself is logged once it has run");
    assertEquals(
        error("ERR count should be greater than or equal to -1"), c.call("SLOWLOG", "GET", "-2"));
    assertEquals(
        error("ERR count should be greater than or equal to -1"), c.call("SLOWLOG", "GET", "many"));
    assertEquals(OK, c.call("CONFIG", "SET", "slowlog-log-slower-than", "-1"));
    assertEquals(OK, c.call("SLOWLOG", "RESET"));
    c.call("PING");
    assertEquals(integer(0), c.call("SLOWLOG", "LEN"), "a negative threshold logs nothing");
    Map<String, String> config = pairs(c.callParsed("CONFIG", "GET", "slowlog-*"));
    assertEquals("-1", config.get("slowlog-log-slower-than"));
    assertEquals("3", config.get("slowlog-max-len"));
    assertEquals(arity("slowlog|len"), c.call("SLOWLOG", "LEN", "x"));
  }

  @Test
  void slowlogDefaults() throws IOException {
    Map<String, String> config = pairs(c.callParsed("CONFIG", "GET", "slowlog-*"));
    assertEquals("10000", config.get("slowlog-log-slower-than"));
    assertEquals("128", config.get("slowlog-max-len"));
    assertEquals(
        "0",
        pairs(c.callParsed("CONFIG", "GET", "latency-monitor-threshold"))
            .get("latency-monitor-threshold"));
  }

  // ------------------------------------------------------------------ LATENCY

  @Test
  void latencyRecordsCommandsOverTheThreshold() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      keys.add("latency:" + i);
    }
    KeyspaceConformanceTest.msetAll(c, keys);
    assertEquals("*0\r\n", c.call("LATENCY", "LATEST"), "off by default");
    assertEquals(OK, c.call("CONFIG", "SET", "latency-monitor-threshold", "1"));
    c.call("KEYS", "*"); // 50,000 keys: well over a millisecond on either server
    List<?> latest = assertInstanceOf(List.class, c.callParsed("LATENCY", "LATEST"));
    List<?> command =
        latest.stream()
            .map(List.class::cast)
            .filter(e -> e.get(0).equals("command"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no 'command' event in " + latest));
    assertEquals(4, command.size(), command.toString());
    assertTrue(
        Math.abs((Long) command.get(1) - System.currentTimeMillis() / 1000) <= 5,
        command.toString());
    assertTrue(
        (Long) command.get(2) >= 1 && (Long) command.get(3) >= (Long) command.get(2),
        command.toString());
    List<?> history = assertInstanceOf(List.class, c.callParsed("LATENCY", "HISTORY", "command"));
    assertFalse(history.isEmpty());
    assertEquals(2, ((List<?>) history.get(0)).size(), history.toString());
    assertEquals("*0\r\n", c.call("LATENCY", "HISTORY", "no-such-event"));
    assertEquals(integer(1), c.call("LATENCY", "RESET", "command"));
    assertEquals(integer(0), c.call("LATENCY", "RESET", "command"));
    assertTrue(c.call("LATENCY", "DOCTOR").startsWith("$"), "a text report");
  }

  // ------------------------------------------------------------------ MONITOR

  @Test
  void monitorShowsOtherClientsCommandsInRedisFormat() throws IOException {
    String address = clientField(c, "addr");
    try (RawClient monitor = server.connect()) {
      assertEquals(OK, monitor.call("MONITOR"));
      c.call("SET", "a key", "say \"hi\"\n");
      c.call("CONFIG", "GET", "maxmemory"); // administrative: not shown
      c.call("GET", "a key");
      String quoted = Pattern.quote(" [0 " + address + "] ");
      String first = monitor.readReply();
      assertTrue(
          first.matches(
              "\\+\\d+\\.\\d{6}"
                  + quoted
                  + Pattern.quote("\"SET\" \"a key\" \"say \\\"hi\\\"\\n\"")
                  + "\r\n"),
          first);
      String second = monitor.readReply();
      assertTrue(
          second.matches("\\+\\d+\\.\\d{6}" + quoted + Pattern.quote("\"GET\" \"a key\"") + "\r\n"),
          second);
    }
  }

  /**
   * A script is shown as it starts, then each command it runs, from {@code lua}; every line names
   * the database the client is in once the command has run.
   */
  @Test
  void monitorShowsScriptsThenTheirCommandsWithTheDatabase() throws IOException {
    String address = clientField(c, "addr");
    try (RawClient monitor = server.connect()) {
      assertEquals(OK, monitor.call("MONITOR"));
      c.call("SELECT", "9");
      c.call("EVAL", "redis.call('set',KEYS[1],ARGV[1])", "1", "foo", "bar");
      c.call("SELECT", "0");
      String stamp = "\\+\\d+\\.\\d{6} ";
      String client = Pattern.quote(address + "] ");
      String select = monitor.readReply();
      assertTrue(select.matches(stamp + "\\[9 " + client + "\"SELECT\" \"9\"\r\n"), select);
      String eval = monitor.readReply();
      assertTrue(eval.matches(stamp + "\\[9 " + client + "\"EVAL\" .*\r\n"), eval);
      String inner = monitor.readReply();
      assertTrue(inner.matches(stamp + "\\[9 lua\\] \"set\" \"foo\" \"bar\"\r\n"), inner);
      String back = monitor.readReply();
      assertTrue(back.matches(stamp + "\\[0 " + client + "\"SELECT\" \"0\"\r\n"), back);
    } finally {
      c.call("SELECT", "9");
      c.call("DEL", "foo");
      c.call("SELECT", "0");
    }
  }

  /** EXEC's commands are shown as they run, between MULTI and EXEC; a doomed EXEC runs none. */
  @Test
  void monitorShowsATransactionInOrder() throws IOException {
    try (RawClient monitor = server.connect()) {
      assertEquals(OK, monitor.call("MONITOR"));
      c.call("MULTI");
      c.call("SET", "foo", "bar");
      c.call("EXEC");
      c.call("MULTI");
      c.call("NOSUCHCOMMAND");
      c.call("EXEC");
      for (String expected : new String[] {"\"MULTI\"", "\"SET\" \"foo\" \"bar\"", "\"EXEC\""}) {
        String line = monitor.readReply();
        assertTrue(line.endsWith("] " + expected + "\r\n"), expected + ": " + line);
      }
      for (String expected : new String[] {"\"MULTI\"", "\"EXEC\""}) {
        String line = monitor.readReply();
        assertTrue(line.endsWith("] " + expected + "\r\n"), expected + ": " + line);
      }
    } finally {
      c.call("DEL", "foo");
    }
  }

  // ------------------------------------------------------------------ CLIENT

  @Test
  void clientListHasRedisFieldsAndTheRealAddress() throws IOException {
    c.call("CLIENT", "SETNAME", "lister");
    String info = assertInstanceOf(String.class, c.callParsed("CLIENT", "INFO"));
    Map<String, String> fields = fields(info);
    for (String name :
        List.of(
            "id",
            "addr",
            "laddr",
            "fd",
            "name",
            "age",
            "idle",
            "flags",
            "db",
            "sub",
            "psub",
            "multi",
            "qbuf",
            "qbuf-free",
            "obl",
            "oll",
            "omem",
            "tot-mem",
            "events",
            "cmd",
            "user",
            "redir",
            "resp")) {
      assertTrue(fields.containsKey(name), name + " in " + info);
    }
    assertEquals("lister", fields.get("name"));
    assertEquals("client|info", fields.get("cmd"));
    // The query buffer still holds the running command, as Redis's does until it has run.
    assertEquals("26", fields.get("qbuf"), "*2 $6 client $4 info: " + info);
    assertEquals("127.0.0.1:" + server.port(), fields.get("laddr"));
    assertTrue(fields.get("addr").matches("127\\.0\\.0\\.1:\\d+"), info);
    String list = assertInstanceOf(String.class, c.callParsed("CLIENT", "LIST"));
    assertTrue(list.contains("addr=" + fields.get("addr") + " "), list);
  }

  @Test
  void clientKillByIdAddressAndSelf() throws IOException {
    try (RawClient victim = server.connect();
        RawClient second = server.connect()) {
      long id = (Long) victim.callParsed("CLIENT", "ID");
      assertEquals(integer(1), c.call("CLIENT", "KILL", "ID", Long.toString(id)));
      assertTrue(victim.closedByServer());
      assertEquals(OK, c.call("CLIENT", "KILL", clientField(second, "addr")));
      assertTrue(second.closedByServer());
    }
    assertEquals(error("ERR No such client"), c.call("CLIENT", "KILL", "127.0.0.1:1"));
    assertEquals(integer(0), c.call("CLIENT", "KILL", "ADDR", "127.0.0.1:1"));
    assertEquals(integer(0), c.call("CLIENT", "KILL", "LADDR", "127.0.0.1:1"));
    assertEquals(
        error("ERR client-id should be greater than 0"), c.call("CLIENT", "KILL", "ID", "0"));
    assertEquals(error("ERR No such user 'nobody'"), c.call("CLIENT", "KILL", "USER", "nobody"));
    assertEquals(SYNTAX, c.call("CLIENT", "KILL", "COLOR", "red"));
    long mine = (Long) c.callParsed("CLIENT", "ID");
    assertEquals(
        integer(0),
        c.call("CLIENT", "KILL", "ID", Long.toString(mine)),
        "SKIPME is yes by default");
    assertEquals(integer(1), c.call("CLIENT", "KILL", "ID", Long.toString(mine), "SKIPME", "no"));
    assertTrue(c.closedByServer(), "a client that kills itself is closed after its reply");
  }

  @Test
  void clientNoEvict() throws IOException {
    assertEquals(OK, c.call("CLIENT", "NO-EVICT", "on"));
    assertTrue(fields((String) c.callParsed("CLIENT", "INFO")).get("flags").contains("e"));
    assertEquals(OK, c.call("CLIENT", "NO-EVICT", "OFF"));
    assertEquals("N", fields((String) c.callParsed("CLIENT", "INFO")).get("flags"));
    assertEquals(SYNTAX, c.call("CLIENT", "NO-EVICT", "maybe"));
  }

  // ------------------------------------------------------------------ MEMORY

  @Test
  void memoryUsageEstimatesKeyAndValue() throws IOException {
    c.call("SET", "big", "x".repeat(5000));
    long usage = (Long) c.callParsed("MEMORY", "USAGE", "big");
    assertTrue(usage >= 5003 && usage <= 5400, "MEMORY USAGE of a 5,000-byte string: " + usage);
    assertEquals(integer(usage), c.call("MEMORY", "USAGE", "big", "SAMPLES", "5"));
    assertEquals(NIL, c.call("MEMORY", "USAGE", "missing"));
    assertEquals(SYNTAX, c.call("MEMORY", "USAGE", "big", "COLOR", "red"));
    c.call("SET", "small", "x");
    assertTrue((Long) c.callParsed("MEMORY", "USAGE", "small") < usage);
  }

  @Test
  void memoryStatsIsAMapWithRedisFieldNames() throws IOException {
    c.call("MSET", "a", "1", "b", "2");
    Map<String, Object> stats = new HashMap<>();
    List<?> flat = assertInstanceOf(List.class, c.callParsed("MEMORY", "STATS"));
    for (int i = 0; i < flat.size(); i += 2) {
      stats.put((String) flat.get(i), flat.get(i + 1));
    }
    for (String name :
        List.of(
            "peak.allocated",
            "total.allocated",
            "startup.allocated",
            "clients.normal",
            "overhead.total",
            "keys.count",
            "keys.bytes-per-key",
            "dataset.bytes",
            "dataset.percentage",
            "peak.percentage",
            "fragmentation")) {
      assertTrue(stats.containsKey(name), name + " in " + stats);
    }
    assertEquals(2L, stats.get("keys.count"));
    assertTrue(
        (Long) stats.get("peak.allocated") >= (Long) stats.get("total.allocated")
            || server.isRedis(),
        stats.toString());
    assertInstanceOf(List.class, stats.get("db.0"));
  }

  // ------------------------------------------------------------------ INFO

  @Test
  void infoHasTheFieldsMonitoringToolsRead() throws IOException {
    c.call("SET", "k", "v");
    String info = (String) c.callParsed("INFO", "everything");
    for (String field :
        List.of(
            "uptime_in_seconds",
            "connected_clients",
            "blocked_clients",
            "used_memory",
            "used_memory_human",
            "used_memory_peak",
            "total_connections_received",
            "total_commands_processed",
            "instantaneous_ops_per_sec",
            "total_net_input_bytes",
            "total_net_output_bytes",
            "instantaneous_input_kbps",
            "instantaneous_output_kbps",
            "rejected_connections",
            "expired_keys",
            "evicted_keys",
            "keyspace_hits",
            "keyspace_misses",
            "total_forks",
            "migrate_cached_sockets")) {
      assertTrue(
          Pattern.compile("(?m)^" + field + ":\\S+\r\n").matcher(info).find(),
          field + " in\n" + info);
    }
    assertTrue(
        Pattern.compile("(?m)^instantaneous_input_kbps:\\d+\\.\\d\\d\r\n").matcher(info).find(),
        info);
    assertTrue(
        Pattern.compile("(?m)^db0:keys=1,expires=\\d+,avg_ttl=\\d+").matcher(info).find(), info);
  }

  @Test
  void keyspaceLineCountsKeysWithAnExpiry() throws Exception {
    for (int i = 0; i < 200; i++) {
      c.call("SET", "k" + i, "v");
      if (i % 2 == 0) {
        c.call("EXPIRE", "k" + i, "1000");
      }
    }
    // Cellar estimates expires and avg_ttl from keys sampled once a second (Redis counts expires
    // exactly): within 20 s the estimate must be near half the keys.
    Pattern line = Pattern.compile("db0:keys=200,expires=(\\d+),avg_ttl=(\\d+)");
    String keyspace = "";
    for (long deadline = System.nanoTime() + 20_000_000_000L;
        System.nanoTime() < deadline;
        Thread.sleep(250)) {
      keyspace = (String) c.callParsed("INFO", "keyspace");
      var m = line.matcher(keyspace);
      assertTrue(m.find(), keyspace);
      long expires = Long.parseLong(m.group(1));
      long ttl = Long.parseLong(m.group(2));
      if (expires >= 70 && expires <= 130 && ttl > 900_000 && ttl <= 1_000_000) {
        return;
      }
    }
    throw new AssertionError(
        "expected about 100 keys with an expiry and avg_ttl near 1000000 ms: " + keyspace);
  }

  @Test
  void instantaneousOpsPerSecondFollowsTraffic() throws Exception {
    String pings = RawClient.command("PING").repeat(1000);
    long deadline = System.nanoTime() + 600_000_000L;
    while (System.nanoTime() < deadline) {
      c.sendRaw(pings);
      for (int i = 0; i < 1000; i++) {
        c.readReply();
      }
    }
    String stats = (String) c.callParsed("INFO", "stats");
    var m = Pattern.compile("instantaneous_ops_per_sec:(\\d+)").matcher(stats);
    assertTrue(m.find(), stats);
    assertTrue(Long.parseLong(m.group(1)) > 0, "after 600 ms of pipelined PINGs: " + m.group());
  }

  // ------------------------------------------------------------------ helpers

  /** A field of this connection's CLIENT INFO line. */
  static String clientField(RawClient client, String name) throws IOException {
    return fields((String) client.callParsed("CLIENT", "INFO")).get(name);
  }

  static Map<String, String> fields(String line) {
    Map<String, String> out = new HashMap<>();
    for (String pair : line.strip().split(" ")) {
      int eq = pair.indexOf('=');
      out.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return out;
  }

  private static Map<String, String> pairs(Object reply) {
    List<?> flat = assertInstanceOf(List.class, reply);
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < flat.size(); i += 2) {
      out.put((String) flat.get(i), (String) flat.get(i + 1));
    }
    return out;
  }
}
