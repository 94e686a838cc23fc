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
}
