package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code INFO errorstats}, {@code total_error_replies} and the commands' {@code rejected_calls} and
 * {@code failed_calls}, counted as Redis counts them: refusals before a command runs are rejected
 * calls, error replies of a running command failed ones; an error a script's {@code redis.call}
 * raised is counted once, where the command failed; a transaction's failed commands are theirs, not
 * EXEC's. The expected numbers are redis-server's for the same sequence.
 */
class ErrorStatsConformanceTest extends AbstractConformanceTest {

  @Test
  void errorRepliesAreCountedByCodeOnceEach() throws IOException {
    c.call("XADD", "mystream", "*", "f", "v");
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    assertEquals(Map.of(), errorStats());

    // MULTI with a failing command, then EXEC without MULTI.
    c.call("MULTI");
    c.call("SET", "a", "b");
    c.call("LPUSH", "mystream", "x");
    c.call("EXEC");
    assertTrue(c.call("EXEC").startsWith("-ERR EXEC without MULTI"));
    // A script catching its command's error, a script passing one on, a made-up code.
    c.call("EVAL", "redis.pcall('XGROUP', 'CREATECONSUMER', 's1', 'g', 'c') return", "0");
    assertTrue(
        c.call("EVAL", "return redis.call('lpush','mystream','x')", "0").startsWith("-WRONGTYPE"));
    assertTrue(c.call("EVAL", "return redis.call('nosuch')", "0").startsWith("-ERR Unknown"));
    assertEquals(
        error("MYERR boom"), c.call("EVAL", "return redis.error_reply('MYERR boom')", "0"));
    // Refusals: wrong arity, an unknown command, and one queued in MULTI.
    assertEquals(arity("eval"), c.call("EVAL", "a"));
    assertTrue(c.call("ASDF").startsWith("-ERR unknown command"));
    c.call("MULTI");
    assertEquals(arity("set"), c.call("SET"));
    assertTrue(c.call("EXEC").startsWith("-EXECABORT"));
    assertTrue(c.call("EVALSHA", "NotValidShaSUM", "0").startsWith("-NOSCRIPT"));
    assertTrue(c.call("XGROUP", "CREATECONSUMER", "mystream", "g", "c").startsWith("-NOGROUP"));

    Map<String, Long> expected = new LinkedHashMap<>();
    expected.put("ERR", 6L);
    expected.put("EXECABORT", 1L);
    expected.put("MYERR", 1L);
    expected.put("NOGROUP", 1L);
    expected.put("NOSCRIPT", 1L);
    expected.put("WRONGTYPE", 2L);
    assertEquals(expected, errorStats());
    assertTrue(c.call("INFO", "stats").contains("\r\ntotal_error_replies:12\r\n"));
    String commands = c.call("INFO", "commandstats");
    assertCalls(commands, "lpush", 2, 0, 2);
    assertCalls(commands, "set", 1, 1, 0);
    assertCalls(commands, "exec", 3, 0, 2); // EXEC without MULTI, and EXECABORT
    assertCalls(commands, "eval", 4, 1, 3); // the three that answered an error
    assertCalls(commands, "evalsha", 1, 0, 1);

    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    assertEquals(Map.of(), errorStats());
    assertTrue(c.call("INFO", "stats").contains("\r\ntotal_error_replies:0\r\n"));
  }

  @Test
  void blockedCommandsAnsweredWithAnErrorFail() throws Exception {
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    c.call("XGROUP", "CREATE", "mystream", "g", "$", "MKSTREAM");
    try (RawClient blocked = server.connect();
        RawClient unblocked = server.connect()) {
      blocked.send("XREADGROUP", "GROUP", "g", "Alice", "BLOCK", "0", "STREAMS", "mystream", ">");
      unblocked.send("BLPOP", "list", "0");
      waitForBlocked(2);
      c.call("XGROUP", "DESTROY", "mystream", "g");
      assertTrue(blocked.readReply().startsWith("-NOGROUP"));
      long blpopId =
          Long.parseLong(
              c.call("CLIENT", "LIST")
                  .lines()
                  .filter(l -> l.contains(" cmd=blpop "))
                  .findFirst()
                  .orElseThrow()
                  .replaceAll("^id=([0-9]+) .*", "$1"));
      assertEquals(integer(1), c.call("CLIENT", "UNBLOCK", Long.toString(blpopId), "ERROR"));
      String reply = unblocked.readReply();
      assertTrue(reply.startsWith("-UNBLOCKED"), reply);
    }
    Map<String, Long> expected = new LinkedHashMap<>();
    expected.put("NOGROUP", 1L);
    expected.put("UNBLOCKED", 1L);
    assertEquals(expected, errorStats());
    String commands = c.call("INFO", "commandstats");
    assertCalls(commands, "xreadgroup", 1, 0, 1);
    assertCalls(commands, "blpop", 1, 0, 1);
  }

  @Test
  void madeUpCodesStopBeingTrackedPastTheLimit() throws IOException {
    // Redis bounds the table from 7.4 on; the local reference (7.0) lets it grow.
    assumeFalse(server.isRedis(), "Redis 7.4's bound; redis-server 7.0 has none");
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    for (int i = 0; i < 130; i++) {
      c.call("EVAL", "return redis.error_reply('CODE" + i + " boom')", "0");
    }
    Map<String, Long> stats = errorStats();
    assertEquals(Map.of("ERRORSTATS_DISABLED", 1L), stats, "the table is bounded, as Redis's");
    assertTrue(c.call("INFO", "stats").contains("\r\ntotal_error_replies:130\r\n"));
  }

  private Map<String, Long> errorStats() throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String line : c.call("INFO", "errorstats").split("\r\n")) {
      if (line.startsWith("errorstat_")) {
        String code = line.substring("errorstat_".length(), line.indexOf(':'));
        out.put(code, Long.parseLong(line.substring(line.indexOf("count=") + 6)));
      }
    }
    return out;
  }

  private static void assertCalls(
      String commandStats, String command, long calls, long rejected, long failed) {
    String line =
        commandStats
            .lines()
            .filter(l -> l.startsWith("cmdstat_" + command + ":"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no cmdstat_" + command + " in " + commandStats));
    assertTrue(line.startsWith("cmdstat_" + command + ":calls=" + calls + ","), line);
    assertTrue(line.endsWith(",rejected_calls=" + rejected + ",failed_calls=" + failed), line);
  }
}
