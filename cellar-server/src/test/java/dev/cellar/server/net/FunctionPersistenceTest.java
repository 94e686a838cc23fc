package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.testsupport.LocalServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Function libraries survive restarts (Redis keeps them in its RDB and AOF; here {@code
 * functions.dat}), deletions too, and a damaged file stops the server with a message naming it
 * instead of starting without the functions.
 */
class FunctionPersistenceTest {
  @TempDir Path dir;

  private CellarServer start() {
    return LocalServer.start(dir);
  }

  private static final String LIB =
      "#!lua name=keep\nredis.register_function('twice', function(keys, args)"
          + " return redis.call('incrby', keys[1], 2) end)";

  @Test
  void librariesAndDeletionsSurviveRestarts() {
    CellarServer server = start();
    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      assertEquals("keep", jedis.functionLoad(LIB));
      jedis.functionLoad("#!lua name=gone\nredis.register_function('g', function() return 1 end)");
      assertEquals("OK", jedis.functionDelete("gone"));
    } finally {
      server.close();
    }
    assertFalse(Files.exists(dir.resolve("functions.dat.tmp")));
    server = start();
    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      assertEquals(2L, jedis.fcall("twice", List.of("n"), List.of()));
      assertEquals(4L, jedis.fcall("twice", List.of("n"), List.of()));
      assertEquals(1, jedis.functionList().size(), "the deleted library stayed deleted");
      assertEquals("OK", jedis.functionFlush());
    } finally {
      server.close();
    }
    server = start();
    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      assertEquals(0, jedis.functionList().size());
    } finally {
      server.close();
    }
  }

  @Test
  void aDamagedFileStopsTheStartAndSaysWhich() throws Exception {
    CellarServer server = start();
    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      jedis.functionLoad(LIB);
    } finally {
      server.close();
    }
    Path file = dir.resolve("functions.dat");
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x20;
    Files.write(file, bytes);
    RuntimeException e = assertThrows(RuntimeException.class, this::start);
    String message = String.valueOf(e.getMessage()) + " " + e.getCause();
    assertTrue(message.contains("functions.dat"), message);
    assertTrue(message.contains("checksum"), message);
    // Moved away, as the message says, the server starts (without the functions).
    Files.move(file, dir.resolve("functions.dat.damaged"));
    server = start();
    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      assertEquals(0, jedis.functionList().size());
    } finally {
      server.close();
    }
  }
}
