package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A short {@code redis-benchmark} run, pipelined and from fifty connections: it must finish, report
 * a rate for each test, have no command fail on the server, and leave the keys it wrote.
 */
class RedisBenchmarkClientTest extends AbstractConformanceTest {
  private static final int REQUESTS = 2000;
  private static final int KEY_RANGE = 1000;

  @Test
  void setAndGetPipelined() throws IOException {
    ToolRun.assumeInstalled("redis-benchmark");
    c.call("CONFIG", "RESETSTAT");
    ToolRun run =
        ToolRun.run(
            List.of(
                "redis-benchmark",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(server.port()),
                "-n",
                Integer.toString(REQUESTS),
                "-r",
                Integer.toString(KEY_RANGE),
                "-t",
                "set,get",
                "-P",
                "16",
                "--csv"),
            new byte[0],
            Duration.ofSeconds(120));
    assertEquals(0, run.exitCode(), run.output());
    assertFalse(run.stderr().contains("rror"), run.output());
    for (String test : List.of("SET", "GET")) {
      Matcher m =
          Pattern.compile("^\"" + test + "\",\"([0-9.]+)\"", Pattern.MULTILINE)
              .matcher(run.stdout());
      assertTrue(m.find(), "no " + test + " line in " + run.output());
      assertTrue(Double.parseDouble(m.group(1)) > 0, run.output());
    }

    String stats = (String) c.callParsed("INFO", "commandstats");
    assertTrue(
        Pattern.compile("cmdstat_set:calls=" + REQUESTS + ",.*,failed_calls=0")
            .matcher(stats)
            .find(),
        stats);
    assertTrue(
        Pattern.compile("cmdstat_get:calls=" + REQUESTS + ",.*,failed_calls=0")
            .matcher(stats)
            .find(),
        stats);

    // -r replaces __rand_int__ in "key:__rand_int__" with a 12-digit number below KEY_RANGE.
    long keys = (Long) c.callParsed("DBSIZE");
    assertTrue(keys > KEY_RANGE / 2 && keys <= KEY_RANGE, "DBSIZE " + keys);
    List<String> all = KeyspaceConformanceTest.strings(c.callParsed("KEYS", "*"));
    assertEquals(keys, all.size());
    for (String key : all) {
      assertTrue(key.matches("key:\\d{12}"), key);
      assertEquals(integer(3), c.call("STRLEN", key), key); // -d 3: three-byte values
    }
  }

  /** redis-benchmark's collection tests: each must finish with no command failed. */
  @Test
  void collectionTestsPipelined() throws IOException {
    ToolRun.assumeInstalled("redis-benchmark");
    c.call("CONFIG", "RESETSTAT");
    List<String> tests =
        List.of(
            "LPUSH",
            "RPUSH",
            "LPOP",
            "RPOP",
            "SADD",
            "HSET",
            "SPOP",
            "LPUSH (needed to benchmark LRANGE)",
            "LRANGE_100 (first 100 elements)");
    ToolRun run =
        ToolRun.run(
            List.of(
                "redis-benchmark",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(server.port()),
                "-n",
                Integer.toString(REQUESTS),
                "-r",
                Integer.toString(KEY_RANGE),
                "-t",
                "lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100",
                "-P",
                "16",
                "--csv"),
            new byte[0],
            Duration.ofSeconds(120));
    assertEquals(0, run.exitCode(), run.output());
    assertFalse(run.stderr().contains("rror"), run.output());
    for (String test : tests) {
      assertTrue(
          run.stdout().contains("\"" + test + "\","), "no " + test + " line in " + run.output());
    }
    String stats = (String) c.callParsed("INFO", "commandstats");
    for (String command :
        List.of(
            "lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "zadd", "zpopmin",
            "lrange")) {
      assertTrue(
          Pattern.compile("cmdstat_" + command + ":calls=\\d+,.*,failed_calls=0\\r")
              .matcher(stats)
              .find(),
          command + ": " + stats);
    }
    assertEquals(simple("list"), c.call("TYPE", "mylist"));
    assertEquals(simple("hash"), c.call("TYPE", "myhash"));
  }
}
