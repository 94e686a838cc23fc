package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code src/test/node/bullmq.js}: BullMQ, the Node job queue (npm {@code bullmq} on ioredis),
 * processing jobs end to end against the server: results, retries, a delayed job, and completion
 * events read from its events stream. BullMQ is Lua scripts (with {@code cmsgpack}) over sorted
 * sets, lists, hashes and streams. Skipped only when node or BullMQ is missing; CI installs them
 * (scripts/install-test-tools.sh puts BullMQ in {@code ~/.cache/cellar-test-node}).
 */
class BullMqClientTest extends AbstractConformanceTest {
  private static final Path SCRIPT = Path.of("src", "test", "node", "bullmq.js");
  private static final Path MODULES =
      Path.of(System.getProperty("user.home"), ".cache", "cellar-test-node", "node_modules");

  @Test
  void bullmqProcessesJobsEndToEnd() {
    ToolRun.assumeInstalled("node");
    assumeTrue(
        Files.isDirectory(MODULES.resolve("bullmq")),
        "BullMQ is not installed in " + MODULES + " (scripts/install-test-tools.sh)");
    assertTrue(Files.isRegularFile(SCRIPT), SCRIPT.toAbsolutePath() + " is missing");
    ToolRun run =
        ToolRun.run(
            List.of("node", SCRIPT.toString()),
            new byte[0],
            Duration.ofSeconds(90),
            Map.of(
                "CELLAR_TEST_PORT",
                Integer.toString(server.port()),
                "NODE_PATH",
                MODULES.toString()));
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.stdout().contains("\"completedEvents\":21"), run.output());
  }
}
