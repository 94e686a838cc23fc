package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cellar bench eviction-tracking}: one tiny round against the real server reports every
 * policy with both rates and a ratio (skipped without the tools or the built launcher). Never any
 * speed.
 */
class EvictionTrackingBenchmarkTest {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  void aTinyRoundReportsEveryPolicy() throws Exception {
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
    Path json = dir.resolve("tracking.json");
    int exit =
        new CommandLine(new EvictionTrackingBenchmark())
            .execute(
                "--rounds",
                "1",
                "--requests",
                "5000",
                "--keyspace",
                "1000",
                "--clients",
                "4",
                "--json",
                json.toString());
    assertEquals(0, exit);
    String report = Files.readString(json);
    for (String policy : new String[] {"noeviction", "allkeys-lru", "allkeys-lfu"}) {
      assertTrue(report.contains("\"" + policy + "\": {\"set_ops_per_s\": ["), report);
    }
    assertTrue(report.matches("(?s).*\"get_median\": [1-9].*"), report);
  }
}
