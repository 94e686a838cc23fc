package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.tool.ToolEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server with {@code --encryption-key-file}: what clients write never reaches the data
 * directory in plaintext, and a restart without the key fails with a reason instead of serving an
 * unreadable store; the key file may also come from the environment or the config file.
 */
class ServerEncryptionTest {
  @TempDir Path tmp;

  @AfterEach
  void resetEnvironment() {
    ToolEnvironment.set(null);
  }

  private Path keyFile() throws IOException {
    return Files.writeString(tmp.resolve("cellar.key"), "# test key\n1 " + "5a".repeat(32) + "\n");
  }

  @Test
  void servesAnEncryptedStoreAndRefusesToStartWithoutItsKey() throws Exception {
    Path key = keyFile();
    Path data = tmp.resolve("data");
    String[] encrypted = {
      "--port",
      "0",
      "--http-port",
      "0",
      "--dir",
      data.toString(),
      "--encryption-key-file",
      key.toString()
    };
    try (ServerProcess server = ServerProcess.run(tmp, encrypted)) {
      int port = server.awaitPort();
      for (int i = 0; i < 200; i++) {
        assertEquals(
            "+OK", ServerProcess.command(port, "SET", "secret:" + i, "TOPSECRETVALUE" + i));
      }
      ServerProcess.command(port, "BGREWRITEAOF"); // compaction of encrypted segments too
      assertFalse(containsPlaintext(data), "plaintext in the data directory of a running server");
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
    assertFalse(containsPlaintext(data), "plaintext in the data directory after shutdown");

    try (ServerProcess server =
        ServerProcess.run(tmp, "--port", "0", "--http-port", "0", "--dir", data.toString())) {
      int exit = server.awaitExit();
      assertNotEquals(CellarCommand.EXIT_OK, exit, server::toString);
      String said = server.stdout() + server.stderr();
      assertTrue(said.contains("is encrypted (key 1)"), said);
      assertTrue(said.contains("--encryption-key-file"), said);
    }

    try (ServerProcess server = ServerProcess.run(tmp, encrypted)) {
      int port = server.awaitPort();
      assertEquals("$16", ServerProcess.command(port, "GET", "secret:42"));
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
  }

  @Test
  void theKeyFileComesFromTheFlagTheConfigFileOrTheEnvironment() throws Exception {
    Path key = keyFile();
    Map<String, String> noFlags = new HashMap<>();
    assertNull(ServerCommand.settings(null, noFlags).config().encryptionKeyFile());

    ToolEnvironment.set(Map.of(ServerCommand.KEY_FILE_VARIABLE, key.toString()));
    assertEquals(key, ServerCommand.settings(null, noFlags).config().encryptionKeyFile());

    Path other = tmp.resolve("other.key");
    Path config =
        Files.writeString(tmp.resolve("cellar.conf"), "encryption-key-file " + other + "\n");
    assertEquals(other, ServerCommand.settings(config, noFlags).config().encryptionKeyFile());

    Map<String, String> flag = new HashMap<>();
    flag.put("encryption-key-file", key.toString());
    assertEquals(key, ServerCommand.settings(config, flag).config().encryptionKeyFile());
  }

  private static boolean containsPlaintext(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)
            && new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)
                .contains("TOPSECRET")) {
          return true;
        }
      }
    }
    return false;
  }
}
