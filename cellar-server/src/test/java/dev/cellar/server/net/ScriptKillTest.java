package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.testsupport.LocalServer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A runaway script, on a server with two event loops: clients of keys it does not hold go on while
 * it runs, SCRIPT KILL stops it at once, and whatever it wrote before is not applied (Redis answers
 * UNKILLABLE for a script that wrote, and only SHUTDOWN NOSAVE stops it).
 */
class ScriptKillTest {
  @TempDir Path dir;
  CellarServer server;

  @BeforeEach
  void start() {
    server = LocalServer.start(dir, "io-threads", "2");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Jedis client() {
    return new Jedis("127.0.0.1", server.port(), 30_000);
  }

  @Test
  void aKilledScriptAppliesNothingAndOthersGoOnMeanwhile() throws Exception {
    try (Jedis runner = client();
        Jedis other = client()) {
      CompletableFuture<Object> result =
          CompletableFuture.supplyAsync(
              () ->
                  runner.eval(
                      "redis.call('set', KEYS[1], 'written'); while true do end",
                      List.of("held"),
                      List.of()));
      // Other keys are served while the script runs (on whichever loop).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      String killed = null;
      while (System.nanoTime() < deadline) {
        assertEquals("OK", other.set("free", "v"));
        try {
          killed = other.scriptKill();
          break;
        } catch (JedisDataException notYet) {
          Thread.sleep(20); // NOTBUSY: the script has not started yet
        }
      }
      assertEquals("OK", killed);
      JedisDataException e =
          assertThrows(
              JedisDataException.class,
              () -> {
                try {
                  result.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException x) {
                  throw x.getCause();
                }
              });
      assertTrue(e.getMessage().startsWith("ERR Script killed by user"), e.getMessage());
      assertNull(other.get("held"), "a killed script's writes are not applied");
      assertEquals("v", other.get("free"));
      assertEquals("OK", other.set("held", "after"), "its key is free again");
    }
  }

  /**
   * A connection made while a script spins lands on a loop that answers, however many are made:
   * connections are accepted on a thread of their own and placed on loops not running a script. An
   * operator's new {@code redis-cli SCRIPT KILL} therefore always gets through; before, a new
   * connection placed on the script's loop (every other one), or a port accepted by it, waited for
   * the script.
   */
  @Test
  void everyNewConnectionAnswersWhileAScriptSpinsAndCanKillIt() throws Exception {
    try (Jedis runner = client()) {
      CompletableFuture<Object> result = runAway(runner, "while true do end", List.of());
      for (int i = 0; i < 6; i++) {
        try (Jedis fresh = new Jedis("127.0.0.1", server.port(), 2_000)) {
          assertEquals("PONG", fresh.ping(), "new connection " + i);
        }
      }
      try (Jedis operator = new Jedis("127.0.0.1", server.port(), 2_000)) {
        assertEquals("OK", operator.scriptKill());
      }
      Object outcome = result.get(10, TimeUnit.SECONDS);
      assertTrue(
          outcome instanceof JedisDataException e
              && e.getMessage().startsWith("ERR Script killed by user"),
          String.valueOf(outcome));
      assertEquals("PONG", runner.ping(), "the script's own connection goes on");
    }
  }

  /**
   * The HTTP port too is accepted off the loops, and its connections placed on a free one: health
   * checks and metrics answer while a script holds a loop.
   */
  @Test
  void httpAnswersWhileAScriptSpins() throws Exception {
    server.close();
    int httpPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      httpPort = probe.getLocalPort();
    }
    server = LocalServer.start(dir, "io-threads", "2", "http-port", Integer.toString(httpPort));
    try (Jedis runner = client()) {
      CompletableFuture<Object> result = runAway(runner, "while true do end", List.of());
      for (int i = 0; i < 4; i++) {
        // A client of its own each time: a new connection, placed anew.
        try (java.net.http.HttpClient http =
            java.net.http.HttpClient.newBuilder()
                .connectTimeout(java.time.Duration.ofSeconds(2))
                .build()) {
          java.net.http.HttpResponse<String> health =
              http.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create("http://127.0.0.1:" + httpPort + "/healthz"))
                      .timeout(java.time.Duration.ofSeconds(2))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
          assertEquals(200, health.statusCode(), health.body());
        }
      }
      try (Jedis operator = new Jedis("127.0.0.1", server.port(), 2_000)) {
        assertEquals("OK", operator.scriptKill());
      }
      result.get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * SCRIPT KILL kills scripts and FUNCTION KILL functions, each answering Redis's BUSY for the
   * other kind, and FUNCTION STATS names the running function and its command.
   */
  @Test
  void eachKillStopsItsOwnKind() throws Exception {
    try (Jedis runner = client();
        Jedis other = client()) {
      other.functionLoad(
          "#!lua name=spinning\nredis.register_function('spin', function(keys)"
              + " redis.call('set', keys[1], 'x') while true do end end)");
      CompletableFuture<Object> result =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return runner.fcall("spin", List.of("held"), List.of());
                } catch (RuntimeException e) {
                  return e;
                }
              });
      String refusal = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (refusal == null && System.nanoTime() < deadline) {
        try {
          other.scriptKill();
          throw new AssertionError("SCRIPT KILL killed a function");
        } catch (JedisDataException e) {
          if (e.getMessage().startsWith("BUSY")) {
            refusal = e.getMessage();
          } else {
            Thread.sleep(20); // NOTBUSY: the function has not started yet
          }
        }
      }
      assertEquals(
          "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN"
              + " NOSAVE.",
          refusal);
      Object stats = other.sendCommand(redis.clients.jedis.Protocol.Command.FUNCTION, "STATS");
      String running =
          String.valueOf(redis.clients.jedis.BuilderFactory.ENCODED_OBJECT.build(stats));
      assertTrue(running.contains("spin") && running.contains("FCALL, spin, 1, held"), running);
      assertEquals("OK", other.functionKill());
      Object outcome = result.get(10, TimeUnit.SECONDS);
      assertTrue(
          outcome instanceof JedisDataException e
              && e.getMessage()
                  .startsWith("ERR Script killed by user with SCRIPT KILL... script: spin"),
          String.valueOf(outcome));
      assertNull(other.get("held"), "a killed function's writes are not applied");
    }
  }

  /**
   * Stopping the server kills a runaway script rather than waiting for its event loop forever (a
   * SIGTERM did not stop a server whose script never ended); what it wrote is not applied.
   */
  @Test
  void stoppingTheServerKillsARunawayScript() throws Exception {
    try (Jedis runner = client()) {
      CompletableFuture<Object> result =
          runAway(
              runner, "redis.call('set', KEYS[1], 'written'); while true do end", List.of("held"));
      // Its own thread: the common pool may have one worker, busy with the EVAL above.
      Thread stopping = new Thread(server::close, "stopping");
      stopping.start();
      stopping.join(TimeUnit.SECONDS.toMillis(20));
      assertTrue(!stopping.isAlive(), "the server did not stop within 20 s");
      result.get(10, TimeUnit.SECONDS);
    }
    server = LocalServer.start(dir, "io-threads", "2");
    try (Jedis again = client()) {
      assertNull(again.get("held"), "a killed script's writes are not applied");
    }
  }

  /**
   * Starts {@code script} on {@code runner} (its outcome, or the exception it ended with, is the
   * future's value) and returns once it runs.
   */
  private CompletableFuture<Object> runAway(Jedis runner, String script, List<String> keys)
      throws InterruptedException {
    CompletableFuture<Object> result =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return runner.eval(script, keys, List.of());
              } catch (RuntimeException e) {
                return e;
              }
            });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!scriptRuns()) {
      assertTrue(System.nanoTime() < deadline, "the script never started");
      Thread.sleep(20);
    }
    return result;
  }

  /**
   * Whether a script runs now, as {@code FUNCTION STATS} tells it (its {@code running_script}),
   * asked on a new connection: new connections are placed on a loop that is not running the script.
   */
  private boolean scriptRuns() {
    try (Jedis probe = new Jedis("127.0.0.1", server.port(), 5_000)) {
      Object stats = probe.sendCommand(redis.clients.jedis.Protocol.Command.FUNCTION, "STATS");
      return String.valueOf(redis.clients.jedis.BuilderFactory.ENCODED_OBJECT.build(stats))
          .contains("duration_ms");
    }
  }
}
