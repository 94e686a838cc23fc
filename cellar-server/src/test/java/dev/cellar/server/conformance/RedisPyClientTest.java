package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code src/test/python/test_redis_py.py} (redis-py over RESP2 and RESP3) with pytest against
 * the server, passing its port in {@code CELLAR_TEST_PORT}. Skipped only when python3, redis-py or
 * pytest is missing; CI installs them (scripts/install-test-tools.sh).
 */
class RedisPyClientTest extends AbstractConformanceTest {
  private static final Path TESTS = Path.of("src", "test", "python", "test_redis_py.py");

  @Test
  void redisPySuitePasses() {
    ToolRun run = ToolRun.pytest("redis, pytest", TESTS, server.port(), Duration.ofSeconds(120));
    assertEquals(0, run.exitCode(), run.output());
    int passed = run.pytestPassed();
    assertTrue(passed >= 0, run.output());
    assertEquals(27, passed, "every test ran, over both protocols:\n" + run.output());
  }
}
