package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * redis-cli's operator modes against the server: {@code --bigkeys} (SCAN, TYPE, STRLEN), {@code
 * --memkeys} (MEMORY USAGE), {@code --stat} (INFO every interval), {@code --latency} (PING) and
 * {@code redis-cli monitor}. The last three loop until stopped, so they run under {@code timeout},
 * line-buffered through {@code stdbuf} so that what they printed before the signal is not lost in a
 * stdio buffer.
 */
class RedisCliToolsTest extends AbstractConformanceTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @BeforeEach
  void needsTools() {
    ToolRun.assumeInstalled("redis-cli");
    ToolRun.assumeInstalled("timeout");
    ToolRun.assumeInstalled("stdbuf");
  }

  private ToolRun cli(List<String> prefix, String... args) {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(server.port())));
    command.addAll(List.of(args));
    return ToolRun.run(command, new byte[0], TIMEOUT);
  }

  /** Runs a mode that never ends by itself for {@code seconds}, then interrupts it. */
  private ToolRun forSeconds(int seconds, String... args) {
    return cli(List.of("timeout", "-s", "INT", Integer.toString(seconds), "stdbuf", "-oL"), args);
  }

  private void someKeys() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add("small:" + i);
    }
    KeyspaceConformanceTest.msetAll(c, keys);
    assertEquals(OK, c.call("SET", "the-biggest", "x".repeat(20_000)));
    assertEquals(OK, c.call("SET", "runner-up", "x".repeat(5_000)));
  }

  @Test
  void bigkeysNamesTheBiggestString() throws IOException {
    someKeys();
    ToolRun run = cli(List.of(), "--bigkeys");
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(
        run.stdout().contains("Biggest string found '\"the-biggest\"' has 20000 bytes"),
        run.output());
    assertTrue(run.stdout().contains("Sampled 302 keys in the keyspace!"), run.output());
  }

  @Test
  void memkeysNamesTheBiggestStringByMemory() throws IOException {
    someKeys();
    ToolRun run = cli(List.of(), "--memkeys");
    assertEquals(0, run.exitCode(), run.output());
    Matcher m =
        Pattern.compile("Biggest string found '\"the-biggest\"' has (\\d+) bytes")
            .matcher(run.stdout());
    assertTrue(m.find(), run.output());
    long bytes = Long.parseLong(m.group(1));
    assertTrue(
        bytes >= 20_000 && bytes < 21_000,
        "MEMORY USAGE of a 20,000-byte string as --memkeys shows it: " + bytes);
  }

  @Test
  void statPrintsKeysMemoryClientsAndRequests() throws IOException {
    someKeys();
    ToolRun run = forSeconds(3, "--stat", "-i", "0.5");
    List<String> lines = run.stdout().lines().toList();
    assertTrue(lines.size() >= 4, run.output());
    assertTrue(
        lines.get(1).startsWith("keys       mem      clients blocked requests"), run.output());
    String[] row = lines.get(2).trim().split("\\s+");
    assertEquals("302", row[0], "the keys column, summed from INFO keyspace: " + lines.get(2));
    assertTrue(row[1].matches("[\\d.]+[BKMG]"), "used_memory_human: " + lines.get(2));
    assertTrue(Long.parseLong(row[2]) >= 1, "connected_clients: " + lines.get(2));
  }

  @Test
  void monitorPrintsOtherClientsCommands() throws Exception {
    Thread traffic =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (RawClient client = server.connect()) {
                    // Once redis-cli's MONITOR has taken effect (flags=O in CLIENT LIST), run what
                    // it should show.
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (!((String) client.callParsed("CLIENT", "LIST")).contains("flags=O")
                        && System.nanoTime() < deadline) {
                      Thread.sleep(20);
                    }
                    client.call("SET", "watched key", "1");
                    client.call("INCR", "counter");
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
    ToolRun run = forSeconds(3, "monitor");
    traffic.join();
    List<String> lines = run.stdout().lines().toList();
    assertEquals("OK", lines.getFirst(), run.output());
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.matches(
                        "\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] \"SET\" \"watched key\" \"1\"")),
        run.output());
    assertTrue(lines.stream().anyMatch(l -> l.endsWith("] \"INCR\" \"counter\"")), run.output());
  }

  @Test
  void latencyMeasuresPings() {
    ToolRun run = forSeconds(2, "--latency");
    // Not a terminal: one line, "min max avg samples", rewritten as samples accumulate.
    String[] last = run.stdout().lines().reduce((a, b) -> b).orElse("").trim().split(" ");
    assertEquals(4, last.length, run.output());
    long samples = Long.parseLong(last[3]);
    assertTrue(samples > 10, "PINGs answered in 2 s: " + run.output());
    assertTrue(
        Long.parseLong(last[0]) <= Double.parseDouble(last[2])
            && Double.parseDouble(last[2]) <= Long.parseLong(last[1]),
        "min <= avg <= max: " + run.output());
  }
}
