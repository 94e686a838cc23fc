package dev.cellar.backup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.StoreLockedException;
import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Credentials;
import dev.cellar.backup.s3.S3Exception;
import dev.cellar.backup.s3.S3Location;
import dev.cellar.backup.testing.S3ProxyServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups and restores of real stores through a real S3 API endpoint (s3proxy on a local
 * directory): a round trip that restores every key, a second backup that sends only what changed,
 * an older backup restored by name, a damaged object caught before anything is restored, a store
 * that is open refused, and a request signed with the wrong secret refused by the endpoint.
 */
class BackupRestoreTest {
  private static final CellarOptions SMALL_SEGMENTS =
      CellarOptions.defaults()
          .segmentBytes(1 << 20)
          .maxValueBytes(64 << 10)
          .backgroundCompaction(false);

  @TempDir Path dir;
  private S3ProxyServer s3;
  private S3Client client;
  private final StringWriter log = new StringWriter();

  @BeforeEach
  void start() throws Exception {
    s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")));
    client = s3.client();
  }

  @AfterEach
  void stop() throws Exception {
    s3.close();
  }

  private static byte[] key(int i) {
    return ("user:" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i, int version) {
    byte[] v = new byte[200];
    Arrays.fill(v, (byte) (i * 31 + version));
    return v;
  }

  private static void write(Path store, int from, int to, int version) {
    try (Cellar db = Cellar.open(store, SMALL_SEGMENTS)) {
      for (int i = from; i < to; i++) {
        db.put(key(i), value(i, version));
      }
    }
  }

  private static void assertHolds(Path store, int keys, int version, int absentFrom) {
    try (Cellar db = Cellar.open(store, SMALL_SEGMENTS)) {
      for (int i = 0; i < keys; i++) {
        assertArrayEquals(value(i, version), db.get(key(i)), "key " + i);
      }
      assertNull(db.get(key(absentFrom)));
      assertEquals(keys, db.size());
    }
  }

  private Backup backup(Instant at) {
    return new Backup(client, Clock.fixed(at, ZoneOffset.UTC));
  }

  @Test
  void restoresEveryKeyAndASecondBackupSendsOnlyWhatChanged() throws Exception {
    Path store = dir.resolve("store");
    write(store, 0, 20_000, 1);
    S3Location target = S3Location.parse("s3://backups/nightly/shop");
    PrintWriter out = new PrintWriter(log, true);

    Backup.Report first = backup(Instant.parse("2026-11-26T07:00:00Z")).run(store, target, out);
    assertTrue(first.manifest().files().size() >= 5, first.manifest().files().toString());
    assertEquals(first.manifest().files().size(), first.uploaded(), "everything is new at first");

    Path restored = dir.resolve("restored");
    new Restore(client).run(target, null, restored, out);
    assertHolds(restored, 20_000, 1, 20_000);

    write(store, 20_000, 21_000, 1); // a few more keys: the active segment grows
    Backup.Report second = backup(Instant.parse("2026-11-26T08:00:00Z")).run(store, target, out);
    assertTrue(
        second.uploaded() <= 4 && second.uploaded() < second.manifest().files().size() - 2,
        "sealed segments are not sent again: "
            + second.uploaded()
            + " uploaded of "
            + second.manifest().files().size());

    Path newest = dir.resolve("newest");
    new Restore(client).run(target, null, newest, out);
    assertHolds(newest, 21_000, 1, 21_000);

    // The first backup is still whole, by the name of its manifest.
    Path older = dir.resolve("older");
    Restore.Report report =
        new Restore(client).run(target, first.manifest().objectName(), older, out);
    assertEquals(first.manifest(), report.manifest());
    assertHolds(older, 20_000, 1, 20_000);
  }

  @Test
  void aDamagedObjectIsFoundBeforeAnythingIsRestored() throws Exception {
    Path store = dir.resolve("store");
    write(store, 0, 5_000, 1);
    S3Location target = S3Location.parse("s3://backups/b");
    Backup.Report report =
        backup(Instant.parse("2026-11-26T07:00:00Z"))
            .run(store, target, new PrintWriter(log, true));
    BackupManifest.Entry victim =
        report.manifest().files().stream()
            .filter(e -> e.name().startsWith("seg-"))
            .findFirst()
            .orElseThrow();
    Path blob = s3.objectFile(target.key(victim.objectName()));
    byte[] bytes = Files.readAllBytes(blob);
    bytes[bytes.length / 2] ^= 0x01; // one bit, in the middle of a segment
    Files.write(blob, bytes);

    Path restored = dir.resolve("restored");
    BackupException e =
        assertThrows(
            BackupException.class,
            () -> new Restore(client).run(target, null, restored, new PrintWriter(log, true)));
    assertTrue(
        e.getMessage().contains(victim.name() + " from s3://backups/b is damaged"), e.getMessage());
    assertFalse(Files.exists(restored), "no store directory is left to open");
    assertFalse(Files.exists(dir.resolve("restored.restoring")), "no staging is left");
  }

  @Test
  void aStoreThatIsOpenIsRefusedAndATargetThatIsNotEmptyToo() throws Exception {
    Path store = dir.resolve("store");
    write(store, 0, 100, 1);
    S3Location target = S3Location.parse("s3://backups/b");
    try (Cellar open = Cellar.open(store, SMALL_SEGMENTS)) {
      StoreLockedException e =
          assertThrows(
              StoreLockedException.class,
              () ->
                  backup(Instant.parse("2026-11-26T07:00:00Z"))
                      .run(store, target, new PrintWriter(log, true)));
      assertTrue(e.getMessage().contains("already open"), e.getMessage());
    }
    assertThrows(
        BackupException.class,
        () -> new Restore(client).run(target, null, dir.resolve("none"), new PrintWriter(log)),
        "no backup yet");
    backup(Instant.parse("2026-11-26T07:00:00Z")).run(store, target, new PrintWriter(log, true));
    BackupException e =
        assertThrows(
            BackupException.class,
            () -> new Restore(client).run(target, null, store, new PrintWriter(log)));
    assertTrue(e.getMessage().contains("not empty"), e.getMessage());
  }

  @Test
  void theEndpointRefusesARequestSignedWithTheWrongSecret() {
    S3Client wrong =
        new S3Client(
            s3.endpoint(), "us-east-1", new S3Credentials(S3ProxyServer.ACCESS, "not-it", null));
    S3Exception e =
        assertThrows(S3Exception.class, () -> wrong.put("backups", "k", new byte[] {1}));
    assertEquals(403, e.status(), e.getMessage());
    client.put("backups", "k", new byte[] {1, 2, 3});
    assertArrayEquals(new byte[] {1, 2, 3}, client.get("backups", "k"));
    assertEquals(3L, client.head("backups", "k").orElseThrow());
    assertTrue(client.head("backups", "absent").isEmpty());
  }
}
