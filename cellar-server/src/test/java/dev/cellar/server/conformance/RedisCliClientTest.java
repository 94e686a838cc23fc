package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code redis-cli} as people use it: one command per run, commands piped in as lines, mass
 * insertion with {@code --pipe}, {@code --scan}, {@code -x}, {@code -r}, and RESP3 with {@code -3}.
 * Its output is compared exactly (redis-cli prints raw replies when its output is not a terminal,
 * and the usual formatted ones with {@code --no-raw}).
 */
class RedisCliClientTest extends AbstractConformanceTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @BeforeEach
  void needsRedisCli() {
    ToolRun.assumeInstalled("redis-cli");
  }

  private ToolRun cli(String... args) {
    return cliWithInput(new byte[0], args);
  }

  private ToolRun cliWithInput(byte[] stdin, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(server.port())));
    command.addAll(List.of(args));
    return ToolRun.run(command, stdin, TIMEOUT);
  }

  @Test
  void oneCommandPerRun() throws IOException {
    assertEquals("OK\n", cli("SET", "k", "hello world").stdout());
    assertEquals("hello world\n", cli("GET", "k").stdout());
    assertEquals("\n", cli("GET", "missing").stdout(), "nil prints as an empty line when raw");
    assertEquals("(nil)\n", cli("--no-raw", "GET", "missing").stdout());
    assertEquals("1\n", cli("INCR", "n").stdout());
    assertEquals("(integer) 2\n", cli("--no-raw", "INCR", "n").stdout());
    assertEquals("ERR value is not an integer or out of range\n\n", cli("INCR", "k").stdout());
    assertEquals(
        "(error) ERR value is not an integer or out of range\n",
        cli("--no-raw", "INCR", "k").stdout());
    assertEquals("1\n2\n3\n", cli("-r", "3", "INCR", "repeated").stdout());
    assertEquals(bulk("hello world"), c.call("GET", "k"));
  }

  @Test
  void commandsPipedAsLines() throws IOException {
    String script =
        "SET a 1\nINCR a\nSET \"a key\" \"a value\"\nGET \"a key\"\nNOSUCH x\nPING\nMGET a nope\n";
    ToolRun run = cliWithInput(script.getBytes(StandardCharsets.UTF_8));
    assertEquals(
        "OK\n2\nOK\na value\nERR unknown command 'NOSUCH', with args beginning with: 'x' \n\nPONG\n2\n\n",
        run.stdout(),
        run.output());
    assertEquals(bulk("a value"), c.call("GET", "a key"));
  }

  @Test
  void valueFromStandardInput() throws IOException {
    byte[] value = "line one\nline two\r\n\u00e9".getBytes(StandardCharsets.UTF_8);
    assertEquals("OK\n", cliWithInput(value, "-x", "SET", "from-stdin").stdout());
    assertEquals(bulk(new String(value, StandardCharsets.ISO_8859_1)), c.call("GET", "from-stdin"));
  }

  @Test
  void massInsertionWithPipe() throws IOException {
    StringBuilder protocol = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      protocol.append(RawClient.command("SET", "mass:" + i, "value-" + i));
    }
    ToolRun run = cliWithInput(protocol.toString().getBytes(StandardCharsets.ISO_8859_1), "--pipe");
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.stdout().endsWith("errors: 0, replies: 20000\n"), run.output());
    assertEquals(integer(20_000), c.call("DBSIZE"));
    assertEquals(bulk("value-12345"), c.call("GET", "mass:12345"));
  }

  @Test
  void massInsertionCountsErrors() {
    String protocol =
        RawClient.command("SET", "t", "text")
            + RawClient.command("INCR", "t")
            + RawClient.command("SET", "z", "1");
    ToolRun run = cliWithInput(protocol.getBytes(StandardCharsets.ISO_8859_1), "--pipe");
    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.stdout().endsWith("errors: 1, replies: 3\n"), run.output());
  }

  @Test
  void scanMode() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add("user:" + i);
      keys.add("item:" + i);
    }
    KeyspaceConformanceTest.msetAll(c, keys);
    ToolRun run = cli("--scan", "--pattern", "user:*");
    Set<String> printed = new HashSet<>(run.stdout().lines().toList());
    assertEquals(500, printed.size(), run.output());
    assertTrue(printed.stream().allMatch(k -> k.startsWith("user:")), run.output());
  }

  @Test
  void resp3() throws IOException {
    c.call("SET", "k", "v");
    assertEquals("(nil)\n", cli("-3", "--no-raw", "GET", "missing").stdout());
    assertEquals(
        "1# \"maxmemory\" => \"0\"\n",
        cli("-3", "--no-raw", "CONFIG", "GET", "maxmemory").stdout(),
        "a RESP3 map, which redis-cli prints as one");
    ToolRun hello = cli("-3", "HELLO", "3");
    assertTrue(hello.stdout().startsWith("server redis\nversion "), hello.output());
    assertTrue(hello.stdout().contains("\nproto 3\n"), hello.output());
    assertEquals("v\n", cli("-3", "GET", "k").stdout());
  }

  @Test
  void infoAndDbsize() throws IOException {
    c.call("MSET", "a", "1", "b", "2");
    assertEquals("2\n", cli("DBSIZE").stdout());
    ToolRun info = cli("INFO", "keyspace");
    assertTrue(info.stdout().startsWith("# Keyspace\r\ndb0:keys=2,"), info.output());
  }
}
