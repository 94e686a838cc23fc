package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log reserved by writing zeros ({@link CellarOptions#zeroFillLog}) holds and recovers the same
 * data as one reserved with fallocate, across segment rolls, reopen and a full replay.
 */
class ZeroFillLogTest {
  @TempDir Path dir;

  @Test
  void zeroFilledLogRollsAndRecovers() throws Exception {
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .segmentBytes(1 << 20)
            .maxValueBytes(64 << 10)
            .shards(4)
            .zeroFillLog(true);
    byte[] value = new byte[700];
    try (Cellar db = Cellar.open(dir, options)) {
      for (int i = 0; i < 5_000; i++) { // ~3.6 MB: several 1 MiB segments
        value[0] = (byte) i;
        db.put(("k" + i).getBytes(StandardCharsets.UTF_8), value);
      }
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertTrue(
          files.filter(p -> p.getFileName().toString().startsWith("seg-")).count() >= 3,
          "segments rolled");
    }
    // Reopen without the checkpoint so every record is replayed from the zero-filled segments.
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".ckpt")).toList()) {
        Files.delete(p);
      }
    }
    try (Cellar db = Cellar.open(dir, options)) {
      assertEquals(5_000, db.size());
      for (int i = 0; i < 5_000; i += 97) {
        value[0] = (byte) i;
        assertArrayEquals(value, db.get(("k" + i).getBytes(StandardCharsets.UTF_8)));
      }
    }
  }
}
