package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeyException;
import dev.cellar.backup.testing.S3ProxyServer;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools on an encrypted store: {@code verify} and {@code dump} read it with the key file from
 * the flag or the environment and refuse it, naming the key, without; a backup holds no plaintext,
 * and the store it restores opens only with its key.
 */
class EncryptedStoreToolsTest {
  @TempDir Path dir;

  private static final String KEY =
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  @AfterEach
  void resetEnvironment() {
    ToolEnvironment.set(null);
  }

  private Path keyFile() throws IOException {
    return Files.writeString(dir.resolve("store.key"), "1 " + KEY + "\n");
  }

  private CellarOptions options(Path keyFile) {
    return TestStore.options().encryptionKeyFile(keyFile);
  }

  private Path encryptedStore(Path keyFile) throws IOException {
    Path store = Files.createDirectories(dir.resolve("store"));
    try (Cellar db = Cellar.open(store, options(keyFile))) {
      for (int n = 0; n < TestStore.PUTS; n++) {
        db.put(TestStore.key(n), TestStore.value(n));
      }
    }
    return store;
  }

  @Test
  void verifyAndDumpNeedTheKey() throws Exception {
    Path keyFile = keyFile();
    Path store = encryptedStore(keyFile);

    CommandRun without = CommandRun.of("tool", "verify", store.toString());
    assertEquals(CellarCommand.EXIT_FAILURE, without.exitCode(), without.toString());
    assertTrue(without.out().contains("is encrypted (key 1)"), without.toString());

    CommandRun with =
        CommandRun.of(
            "tool", "verify", "--encryption-key-file", keyFile.toString(), store.toString());
    assertEquals(CellarCommand.EXIT_OK, with.exitCode(), with.toString());
    assertTrue(with.out().contains("sealed, key 1"), with.toString());
    assertTrue(with.out().contains("Encryption keys in use: [1]"), with.toString());

    CommandRun dumpWithout = CommandRun.of("tool", "dump", store.toString());
    assertEquals(CellarCommand.EXIT_FAILURE, dumpWithout.exitCode(), dumpWithout.toString());
    assertTrue(dumpWithout.err().contains("is encrypted (key 1)"), dumpWithout.toString());
    assertFalse(dumpWithout.err().contains("\tat "), dumpWithout.toString());

    ToolEnvironment.set(Map.of("CELLAR_ENCRYPTION_KEY_FILE", keyFile.toString()));
    CommandRun fromEnvironment = CommandRun.of("tool", "dump", "--values", store.toString());
    assertEquals(CellarCommand.EXIT_OK, fromEnvironment.exitCode(), fromEnvironment.toString());
    assertTrue(fromEnvironment.out().contains("user:17"), fromEnvironment.toString());
    assertTrue(fromEnvironment.out().contains("value-17-"), fromEnvironment.toString());
  }

  @Test
  void aBackupIsEncryptedAndItsRestoreNeedsTheKey() throws Exception {
    Path keyFile = keyFile();
    Path store = encryptedStore(keyFile);
    Path bucketDir = Files.createDirectories(dir.resolve("s3"));
    try (S3ProxyServer s3 = S3ProxyServer.start(bucketDir)) {
      ToolEnvironment.set(
          Map.of(
              "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS,
              "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET,
              "AWS_ENDPOINT_URL", s3.endpoint().toString()));
      CommandRun backup = CommandRun.of("tool", "backup", store.toString(), "s3://backups/enc");
      assertEquals(CellarCommand.EXIT_OK, backup.exitCode(), backup.toString());
      assertFalse(containsPlaintext(bucketDir), "the bucket holds plaintext");

      Path restored = dir.resolve("restored");
      CommandRun restore =
          CommandRun.of("tool", "restore", "s3://backups/enc", restored.toString());
      assertEquals(CellarCommand.EXIT_OK, restore.exitCode(), restore.toString());
      EncryptionKeyException refused =
          assertThrows(
              EncryptionKeyException.class, () -> Cellar.open(restored, TestStore.options()));
      assertTrue(refused.getMessage().contains("encryption-key-file"), refused.getMessage());
      try (Cellar copy = Cellar.open(restored, options(keyFile))) {
        for (int n = 0; n < TestStore.PUTS; n++) {
          assertArrayEquals(TestStore.value(n), copy.get(TestStore.key(n)), "key " + n);
        }
      }
    }
  }

  private static boolean containsPlaintext(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)
            && new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains("value-1")) {
          return true;
        }
      }
    }
    return false;
  }
}
