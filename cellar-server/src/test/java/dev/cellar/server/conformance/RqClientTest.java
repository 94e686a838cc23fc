package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
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
    ToolRun run =
        ToolRun.pytest("redis, pytest, rq", TESTS, server.port(), Duration.ofSeconds(180));
    assertEquals(0, run.exitCode(), run.output());
    int passed = run.pytestPassed();
    assertTrue(passed >= 0, run.output());
    assertEquals(6, passed, "every test ran:\n" + run.output());
  }
}
