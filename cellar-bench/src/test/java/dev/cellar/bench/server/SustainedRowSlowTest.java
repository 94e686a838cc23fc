package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The sustained-overwrite row alone, short, against the real servers: each server and mode starts,
 * loads, warms up, is measured with its CPU and writes read from {@code /proc}, and stops. Needs
 * what {@link ServerBenchmarkSlowTest} needs, strace excepted; skipped without it.
 */
@Tag("slow")
class SustainedRowSlowTest {
  private static final Pattern WRITE_BYTES = Pattern.compile("\"write_bytes\": (\\d+)");

  @TempDir Path dir;

  @Test
  void runsEachServerAtEachModeAndCountsWhatItWrites() throws Exception {
    Path cellar = Tools.defaultCellarScript();
    assumeTrue(
        Files.exists(cellar.resolveSibling("cellar-cli/target/cellar-cli.jar")),
        "cellar-cli is not built");
    assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "pinning needs two cores");
    try {
      Tools.locate(cellar, false);
    } catch (IllegalStateException e) {
      assumeTrue(false, e.getMessage());
    }
    Path json = dir.resolve("server.json");
    List<String> args =
        List.of(
            "--sustained-only",
            "--sustained-requests",
            "5000",
            "--sustained-warmup",
            "1000",
            "--keyspace",
            "2000",
            "--repeat",
            "1",
            "--no-pin-harness",
            "--out",
            json.toString(),
            "--dir",
            dir.toString());

    assertEquals(0, new CommandLine(new ServerBenchmark()).execute(args.toArray(String[]::new)));

    String report = Files.readString(json);
    assertTrue(report.contains("\"failures\": []"), report);
    // 2 modes x 2 servers, and nothing of the other rows.
    assertEquals(4, occurrences(report, "\"write_amplification\""), report);
    assertEquals(4, occurrences(report, "\"ops_per_s\""), report);
    assertEquals(4, occurrences(report, "\"acknowledged_bytes\": 380000,"), report);
    assertFalse(report.contains("\"ready_s\""), report);
    // Redis without persistence writes nothing; with its AOF, every SET goes into the page cache.
    assertEquals(0, writeBytes(report, "no", "redis"), report);
    assertTrue(writeBytes(report, "everysec", "redis") > 0, report);
    try (var left = Files.list(dir)) {
      assertEquals(List.of(json), left.toList(), "session directories are removed");
    }
  }

  private static long writeBytes(String report, String durability, String server) {
    String session = "\"durability\": \"" + durability + "\", \"server\": \"" + server + "\"";
    for (String line : report.split("\n")) {
      if (line.contains(session) && line.contains("\"write_amplification\"")) {
        Matcher m = WRITE_BYTES.matcher(line);
        assertTrue(m.find(), line);
        return Long.parseLong(m.group(1));
      }
    }
    throw new AssertionError("no sustained run of " + server + " at " + durability + ": " + report);
  }

  private static int occurrences(String text, String needle) {
    return text.split(Pattern.quote(needle), -1).length - 1;
  }
}
