package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code src/test/python/test_rq.py}: RQ, the Python job queue (PyPI {@code rq}), enqueueing
 * jobs and running them in a worker against the server, with failures, retries, dependencies,
 * cancellation and result expiry. RQ uses lists, hashes, sets, sorted sets, streams (its results),
 * pipelines, transactions and WATCH. Skipped only when python3, redis-py, pytest or rq is missing;
 * CI installs them (scripts/install-test-tools.sh).
 */
class RqClientTest extends AbstractConformanceTest {
  private static final Path TESTS = Path.of("src", "test", "python", "test_rq.py");

  @Test
  void rqRunsJobsEndToEnd() {
    ToolRun.assumeInstalled("python3");
    ToolRun probe =
        ToolRun.run(
            List.of("python3", "-c", "import redis, pytest, rq"),
            new byte[0],
            Duration.ofSeconds(60));
    assumeTrue(probe.exitCode() == 0, "rq, redis-py or pytest is not installed: " + probe.stderr());
    assertTrue(Files.isRegularFile(TESTS), TESTS.toAbsolutePath() + " is missing");
    ToolRun run =
        ToolRun.run(
            List.of(
                "python3",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-rfE",
                TESTS.toString()),
            new byte[0],
            Duration.ofSeconds(180),
            Map.of(
                "CELLAR_TEST_PORT",
                Integer.toString(server.port()),
                "PYTHONDONTWRITEBYTECODE",
                "1"));
    assertEquals(0, run.exitCode(), run.output());
    Matcher passed = Pattern.compile("(\\d+) passed").matcher(run.stdout());
    assertTrue(passed.find(), run.output());
    assertEquals(6, Integer.parseInt(passed.group(1)), "every test ran:\n" + run.output());
  }
}
