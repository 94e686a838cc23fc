package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-command latency histograms as Redis 7 keeps them: {@code LATENCY HISTOGRAM} (all commands, a
 * subset, a container with its subcommands, unknown names skipped), subcommands counted on their
 * own in {@code INFO commandstats}, {@code INFO latencystats} with {@code latency-tracking} and
 * {@code latency-tracking-info-percentiles}, and {@code CONFIG RESETSTAT} clearing them.
 */
class LatencyStatsConformanceTest extends AbstractConformanceTest {
  private static final Pattern HISTOGRAM_ENTRY =
      Pattern.compile(
          "\\*4\r\n\\$5\r\ncalls\r\n:(\\d+)\r\n\\$14\r\nhistogram_usec\r\n\\*(\\d+)\r\n");

  @AfterEach
  void defaults() throws IOException {
    c.call("CONFIG", "SET", "latency-tracking", "yes");
    c.call("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9");
  }

  @Test
  void histogramsCoverEachCommandAndSubcommandSinceTheReset() throws IOException {
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    // CONFIG RESETSTAT is counted after it has reset everything.
    String only = c.call("LATENCY", "HISTOGRAM");
    assertTrue(only.startsWith("*2\r\n$16\r\nconfig|resetstat\r\n"), only);
    assertEquals("1", calls(only, "config|resetstat"));

    c.call("SET", "a", "b");
    c.call("SET", "c", "d");
    c.call("GET", "a");
    c.call("HSET", "f", "k", "v");
    c.call("CLIENT", "ID");
    c.call("CLIENT", "LIST");
    String subset = c.call("LATENCY", "HISTOGRAM", "set", "HSET");
    assertTrue(subset.startsWith("*4\r\n"), subset);
    assertEquals("2", calls(subset, "set"));
    assertEquals("1", calls(subset, "hset"));

    String container = c.call("LATENCY", "HISTOGRAM", "client");
    assertTrue(container.startsWith("*4\r\n"), container);
    assertEquals("1", calls(container, "client|id"));
    assertEquals("1", calls(container, "client|list"));
    String one = c.call("LATENCY", "HISTOGRAM", "client|id");
    assertTrue(one.startsWith("*2\r\n$9\r\nclient|id\r\n"), one);

    assertEquals("*0\r\n", c.call("LATENCY", "HISTOGRAM", "blabla"));
    assertEquals("*0\r\n", c.call("LATENCY", "HISTOGRAM", "blabla", "zadd"));
    String skipping = c.call("LATENCY", "HISTOGRAM", "blabla", "blabla2", "set", "get");
    assertTrue(skipping.startsWith("*4\r\n$3\r\nset\r\n"), skipping);

    String commands = c.call("INFO", "commandstats");
    assertTrue(commands.contains("\r\ncmdstat_client|id:calls=1,"), commands);
    assertTrue(commands.contains("\r\ncmdstat_client|list:calls=1,"), commands);
    assertFalse(commands.contains("cmdstat_client:"), commands);

    assertEquals(
        error("ERR wrong number of arguments for 'latency|help' command"),
        c.call("LATENCY", "HELP", "xxx"));
  }

  @Test
  void theCumulativeDistributionGrowsToEveryCall() throws IOException {
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    for (int i = 0; i < 200; i++) {
      c.call("SET", "k" + i, "v");
    }
    String reply = c.call("LATENCY", "HISTOGRAM", "set");
    var m = HISTOGRAM_ENTRY.matcher(reply);
    assertTrue(m.find(), reply);
    assertEquals("200", m.group(1));
    int pairs = Integer.parseInt(m.group(2)) / 2;
    String[] lines = reply.substring(m.end()).split("\r\n");
    long lastMicros = 0;
    long lastCount = 0;
    for (int i = 0; i < pairs; i++) {
      long micros = Long.parseLong(lines[2 * i].substring(1));
      long count = Long.parseLong(lines[2 * i + 1].substring(1));
      assertTrue(micros > lastMicros && count > lastCount, reply);
      lastMicros = micros;
      lastCount = count;
    }
    assertEquals(200, lastCount, reply);
  }

  @Test
  void latencyStatsFollowTheirSettings() throws IOException {
    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    assertEquals(OK, c.call("CONFIG", "SET", "latency-tracking", "no"));
    c.call("SET", "a", "b");
    assertEquals("", percentiles("set"));
    assertEquals(OK, c.call("CONFIG", "SET", "latency-tracking", "yes"));
    c.call("SET", "a", "b");
    c.call("GET", "a");
    assertTrue(
        percentiles("set").matches("p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},p99\\.9=\\d+\\.\\d{3}"),
        percentiles("set"));

    assertEquals(
        OK, c.call("CONFIG", "SET", "latency-tracking-info-percentiles", "0.0 50.0 100.0"));
    assertEquals(
        array("latency-tracking-info-percentiles", "0 50 100"),
        c.call("CONFIG", "GET", "latency-tracking-info-percentiles"));
    assertTrue(
        percentiles("get").matches("p0=[0-9.]+,p50=[0-9.]+,p100=[0-9.]+"), percentiles("get"));

    for (String bad : new String[] {"10.0 50.0 a", "10.0 50.0 101.0"}) {
      String reply = c.call("CONFIG", "SET", "latency-tracking-info-percentiles", bad);
      assertTrue(reply.startsWith("-ERR CONFIG SET failed"), reply);
      assertEquals(
          array("latency-tracking-info-percentiles", "0 50 100"),
          c.call("CONFIG", "GET", "latency-tracking-info-percentiles"));
    }

    assertEquals(OK, c.call("CONFIG", "RESETSTAT"));
    assertEquals("", percentiles("set"));
  }

  /** {@code INFO latencystats}' line for {@code command}, after its colon; empty if none. */
  private String percentiles(String command) throws IOException {
    String info = c.call("INFO", "latencystats");
    String prefix = "latency_percentiles_usec_" + command + ":";
    return info.lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .findFirst()
        .orElse("");
  }

  /** The calls {@code reply}, a LATENCY HISTOGRAM, gives {@code command}. */
  private static String calls(String reply, String command) {
    String head = "$" + command.length() + "\r\n" + command + "\r\n";
    int at = reply.indexOf(head);
    assertTrue(at >= 0, command + " in " + reply);
    var m = HISTOGRAM_ENTRY.matcher(reply);
    assertTrue(m.find(at + head.length()) && m.start() == at + head.length(), reply);
    return m.group(1);
  }
}
