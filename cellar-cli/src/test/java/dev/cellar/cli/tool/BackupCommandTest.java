package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.backup.testing.S3ProxyServer;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cellar tool backup} and {@code restore} as a user runs them, against a real S3 endpoint
 * (s3proxy): credentials from the environment or from a file, never the command line; the exit
 * codes; a store restored by the command opens with every key.
 */
class BackupCommandTest {
  @TempDir Path dir;
  private S3ProxyServer s3;

  @BeforeEach
  void start() throws Exception {
    s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")));
  }

  @AfterEach
  void stop() throws Exception {
    ToolEnvironment.set(null);
    s3.close();
  }

  @Test
  void backsUpAndRestoresWithTheKeyFromTheEnvironment() throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    TestStore.create(store);
    ToolEnvironment.set(
        Map.of(
            "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS,
            "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET,
            "AWS_ENDPOINT_URL", s3.endpoint().toString()));

    CommandRun backup = CommandRun.of("tool", "backup", store.toString(), "s3://backups/cli");
    assertEquals(CellarCommand.EXIT_OK, backup.exitCode(), backup.toString());
    assertTrue(backup.out().contains("manifest manifests/"), backup.toString());

    Path restored = dir.resolve("restored");
    CommandRun restore = CommandRun.of("tool", "restore", "s3://backups/cli", restored.toString());
    assertEquals(CellarCommand.EXIT_OK, restore.exitCode(), restore.toString());
    try (Cellar original = Cellar.open(store, TestStore.options());
        Cellar copy = Cellar.open(restored, TestStore.options())) {
      assertEquals(original.size(), copy.size());
      for (int n = 0; n < TestStore.PUTS; n++) {
        assertArrayEquals(original.get(TestStore.key(n)), copy.get(TestStore.key(n)), "key " + n);
      }
    }

    CommandRun again = CommandRun.of("tool", "restore", "s3://backups/cli", restored.toString());
    assertEquals(CellarCommand.EXIT_FAILURE, again.exitCode(), again.toString());
    assertTrue(again.err().contains("is not empty"), again.toString());
  }

  @Test
  void takesTheKeyFromACredentialsFileAndSaysWhatIsWrong() throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    TestStore.create(store);
    Path credentials = dir.resolve("credentials");
    Files.writeString(
        credentials,
        "[default]\naws_access_key_id = nobody\naws_secret_access_key = wrong\n"
            + "[backup]\naws_access_key_id = "
            + S3ProxyServer.ACCESS
            + "\naws_secret_access_key = "
            + S3ProxyServer.SECRET
            + "\n");
    ToolEnvironment.set(Map.of());
    String endpoint = s3.endpoint().toString();

    CommandRun refused =
        CommandRun.of(
            "tool",
            "backup",
            "--endpoint",
            endpoint,
            "--credentials-file",
            credentials.toString(),
            store.toString(),
            "s3://backups/f");
    assertEquals(CellarCommand.EXIT_FAILURE, refused.exitCode(), refused.toString());
    assertTrue(refused.err().contains("HTTP 403"), refused.toString());

    CommandRun backup =
        CommandRun.of(
            "tool",
            "backup",
            "--endpoint",
            endpoint,
            "--credentials-file",
            credentials.toString(),
            "--profile",
            "backup",
            store.toString(),
            "s3://backups/f");
    assertEquals(CellarCommand.EXIT_OK, backup.exitCode(), backup.toString());

    CommandRun noKey =
        CommandRun.of(
            "tool",
            "restore",
            "--endpoint",
            endpoint,
            "s3://backups/f",
            dir.resolve("r").toString());
    assertEquals(CellarCommand.EXIT_FAILURE, noKey.exitCode(), noKey.toString());
    assertFalse(Files.exists(dir.resolve("r")));

    CommandRun usage = CommandRun.of("tool", "backup", store.toString(), "http://not-s3");
    assertEquals(CellarCommand.EXIT_USAGE, usage.exitCode(), usage.toString());
  }
}
