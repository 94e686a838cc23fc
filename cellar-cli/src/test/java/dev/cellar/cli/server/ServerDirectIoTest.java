package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.IoMode;
import dev.cellar.cli.CellarCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server with {@code --io direct}: it serves reads of sealed segments through its read cache,
 * before and after a restart, MGET reads its misses ahead all at once, INFO says so, and the
 * setting comes from the flag or the config file.
 */
class ServerDirectIoTest {
  @TempDir Path tmp;

  @Test
  void servesASealedStoreThroughItsReadCache() throws Exception {
    Path data = tmp.resolve("data");
    String[] args = {
      "--port",
      "0",
      "--http-port",
      "0",
      "--dir",
      data.toString(),
      "--segment-size",
      "256kb",
      "--io",
      "direct",
      "--read-cache-size",
      "2mb"
    };
    String value = "v".repeat(900);
    try (ServerProcess server = ServerProcess.run(tmp, args)) {
      int port = server.awaitPort();
      for (int batch = 0; batch < 20; batch++) {
        List<String> mset = new ArrayList<>(List.of("MSET"));
        for (int i = batch * 100; i < (batch + 1) * 100; i++) {
          mset.add("k:" + i);
          mset.add(value + i);
        }
        assertEquals("+OK", ServerProcess.command(port, mset.toArray(String[]::new)));
      }
      assertEquals("cellar_io:direct", ServerCompressionTest.infoLine(port, "cellar_io"));
      // The first keys are in sealed segments by now (2 MB in 256 KiB segments).
      assertEquals("$" + (value + 7).length(), ServerProcess.command(port, "GET", "k:7"));
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
    try (ServerProcess server = ServerProcess.run(tmp, args)) {
      int port = server.awaitPort();
      assertEquals(
          "cellar_read_cache_bytes:" + (2 << 20),
          ServerCompressionTest.infoLine(port, "cellar_read_cache_bytes"));
      // A cold cache: MGET's batch read reads its keys' blocks ahead, all at once.
      List<String> mget = new ArrayList<>(List.of("MGET"));
      for (int i = 0; i < 2000; i += 41) {
        mget.add("k:" + i);
      }
      assertEquals(
          "*" + (mget.size() - 1), ServerProcess.command(port, mget.toArray(String[]::new)));
      String readAhead = ServerCompressionTest.infoLine(port, "cellar_read_cache_read_ahead");
      assertTrue(
          Long.parseLong(readAhead.substring(readAhead.indexOf(':') + 1)) > 10,
          readAhead + ", " + ServerCompressionTest.infoLine(port, "cellar_read_cache_misses"));
      for (int i = 0; i < 2000; i += 97) {
        assertEquals(
            "$" + (value + i).length(), ServerProcess.command(port, "GET", "k:" + i), "k:" + i);
      }
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
  }

  @Test
  void anUnknownModeStopsTheStart() throws Exception {
    try (ServerProcess server =
        ServerProcess.run(
            tmp, "--port", "0", "--dir", tmp.resolve("d").toString(), "--io", "raw")) {
      int exit = server.awaitExit();
      assertNotEquals(CellarCommand.EXIT_OK, exit, server::toString);
      String said = server.stdout() + server.stderr();
      assertTrue(said.contains("expected buffered or direct"), said);
    }
  }

  @Test
  void theModeComesFromTheFlagOrTheConfigFile() throws Exception {
    assertEquals(IoMode.BUFFERED, ServerCommand.settings(null, new HashMap<>()).config().io());
    Path config =
        Files.writeString(tmp.resolve("cellar.conf"), "io direct\nread-cache-size 64mb\n");
    assertEquals(IoMode.DIRECT, ServerCommand.settings(config, new HashMap<>()).config().io());
    assertEquals(
        64L << 20, ServerCommand.settings(config, new HashMap<>()).config().readCacheSize());
    Map<String, String> flag = new HashMap<>();
    flag.put("io", "buffered");
    assertEquals(IoMode.BUFFERED, ServerCommand.settings(config, flag).config().io());
  }
}
