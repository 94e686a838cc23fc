package dev.cellar.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The manifest's format: round trip, names that sort by time, and every kind of damage refused. */
class BackupManifestTest {
  private static final String A = "a".repeat(64);
  private static final String B = "b".repeat(64);

  private static BackupManifest sample() {
    return new BackupManifest(
        Instant.parse("2026-11-26T07:10:00.123Z"),
        List.of(
            new BackupManifest.Entry("cellar.meta", 64, A),
            new BackupManifest.Entry("seg-0000000000000001.log", 1 << 20, B)));
  }

  @Test
  void roundTripsAndNamesSortByTime() {
    BackupManifest m = sample();
    assertEquals(m, BackupManifest.decode(m.encode()));
    assertEquals("manifests/20261126T071000123Z.manifest", m.objectName());
    assertEquals(
        "manifests/20261126T071000000Z.manifest",
        new BackupManifest(Instant.parse("2026-11-26T07:10:00Z"), List.of()).objectName());
    assertTrue(
        new BackupManifest(Instant.parse("2026-11-26T07:10:00.5Z"), List.of())
                .objectName()
                .compareTo(m.objectName())
            > 0);
  }

  @Test
  void damageIsRefused() {
    byte[] good = sample().encode();
    String text = new String(good, StandardCharsets.UTF_8);
    for (String bad :
        new String[] {
          text.replace("1048576", "1048577"), // a size altered
          text.substring(0, text.length() - 10), // cut short
          text.replace(B, A), // an object swapped
          "",
        }) {
      assertThrows(
          IllegalArgumentException.class,
          () -> BackupManifest.decode(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
    byte[] flipped = Arrays.copyOf(good, good.length);
    flipped[20] ^= 1;
    assertThrows(IllegalArgumentException.class, () -> BackupManifest.decode(flipped));
    assertThrows(
        IllegalArgumentException.class,
        () -> new BackupManifest.Entry("../escape", 1, A),
        "a name with a path would restore outside the directory");
  }
}
