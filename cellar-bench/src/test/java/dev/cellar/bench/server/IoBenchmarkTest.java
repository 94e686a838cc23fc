package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cellar bench io}: its order of modes, medians, CPU readings and target, and one tiny run
 * of the whole command against the real server (skipped without the tools or the built launcher).
 * Never whether a target is met, nor any speed.
 */
class IoBenchmarkTest {
  @TempDir Path dir;

  @Test
  void eachModeComesFirstInSomeRound() {
    Set<String> first = new HashSet<>();
    for (int round = 1; round <= IoBenchmark.MODES.size(); round++) {
      List<String> order = IoBenchmark.order(round);
      assertEquals(Set.copyOf(IoBenchmark.MODES), Set.copyOf(order));
      first.add(order.getFirst());
    }
    assertEquals(Set.copyOf(IoBenchmark.MODES), first);
  }

  @Test
  void theMedianIsTheMiddleRoundOfOneModeTestAndPipeline() {
    List<IoBenchmark.Run> runs = new ArrayList<>();
    runs.add(new IoBenchmark.Run("direct", "get", 1, 1, 300, 1, 1, 1));
    runs.add(new IoBenchmark.Run("direct", "get", 1, 2, 100, 1, 1, 1));
    runs.add(new IoBenchmark.Run("direct", "get", 1, 3, 200, 1, 1, 1));
    runs.add(new IoBenchmark.Run("direct", "get", 16, 1, 999, 1, 1, 1));
    runs.add(new IoBenchmark.Run("buffered", "get", 1, 1, 5, 1, 1, 1));
    assertEquals(200, IoBenchmark.median(runs, "direct", "get", 1).opsPerSecond());
    assertEquals(999, IoBenchmark.median(runs, "direct", "get", 16).opsPerSecond());
    assertEquals(null, IoBenchmark.median(runs, "direct", "set", 16));
  }

  @Test
  void theTargetIsThroughputOrKernelCpu() {
    assertTrue(IoBenchmark.targetMet(1.5, 0.9));
    assertTrue(IoBenchmark.targetMet(1.0, 0.5));
    assertFalse(IoBenchmark.targetMet(1.4, 0.6));
    assertFalse(IoBenchmark.targetMet(0.9, 0.1));
  }

  @Test
  void readsUserAndKernelTicksOfAProcess() throws Exception {
    long[] ticks = IoBenchmark.userSystemTicks(ProcessHandle.current().pid());
    assertEquals(2, ticks.length);
    assertTrue(ticks[0] > 0 && ticks[1] >= 0, ticks[0] + " " + ticks[1]);
  }

  @Test
  @Timeout(600)
  void aTinyRunReportsEveryModeAndRatio() throws Exception {
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
    Path json = dir.resolve("io.json");
    Path markdown = dir.resolve("io.md");
    int exit =
        new CommandLine(new IoBenchmark())
            .execute(
                "--dir",
                dir.toString(),
                "--memory-limit-mb",
                "192",
                "--data-factor",
                "0.2",
                "--read-cache-mb",
                "8",
                "--heap-mb",
                "48",
                "--requests",
                "2000",
                "--no-hint-requests",
                "1000",
                "--write-requests",
                "1000",
                "--clients",
                "4",
                "--rounds",
                "1",
                "--scan-rounds",
                "1",
                "--pressure-rounds",
                "1",
                "--pressure-sets",
                "4000",
                "--pressure-gets",
                "2000",
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, exit);
    String report = Files.readString(json);
    for (String field :
        List.of(
            "\"memory_cgroup\"",
            "\"throughput_direct_over_buffered\"",
            "\"kernel_cpu_direct_over_buffered\"",
            "\"target_met\"",
            "\"madvise_random_throughput_gain\"",
            "\"buffered-no-madvise\"",
            "\"throughput_uring_over_pool\"",
            "\"cpu_uring_over_serial\"",
            "\"compaction_scan\"",
            "\"reclaimed_bytes\"",
            "\"major_faults\"",
            "\"direct_appends\"",
            "\"memory_pressure\"",
            "\"hot_get_throughput_with_over_without\"",
            "\"buffered-checkpoint-drop\"",
            "\"throughput_o_direct_over_mapped\"",
            "\"segment_page_cache_mib_after_writes_direct\"",
            "\"buffered-no-madv-sequential\"")) {
      assertTrue(report.contains(field), field + " in " + report);
    }
    for (String mode : IoBenchmark.MODES) {
      assertTrue(report.contains("\"mode\": \"" + mode + "\""), mode + " in " + report);
    }
    String md = Files.readString(markdown);
    assertTrue(md.contains("throughput direct/buffered"), md);
    assertTrue(md.contains("The MADV_RANDOM hint"), md);
    assertTrue(md.contains("io_uring/pool"), md);
    assertTrue(md.contains("One compaction pass"), md);
    assertTrue(md.contains("appended with O_DIRECT"), md);
    assertTrue(md.contains("Memory pressure"), md);
  }
}
