package dev.cellar.inspect;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CorruptStoreException;
import dev.cellar.Fsync;
import dev.cellar.IncompatibleFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offline view of a real store: what it reports agrees with what was written and with what an
 * open accepts or refuses.
 */
class InspectTest {
  private static final int PUTS = 2000;
  private static final int DELETES = 300;

  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(16 << 10)
        .shards(4)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO);
  }

  @BeforeEach
  void createStore() {
    try (Cellar db = Cellar.open(dir, options())) {
      for (int n = 0; n < PUTS; n++) {
        db.put(("key:" + n).getBytes(US_ASCII), ("value-" + n + "x".repeat(40)).getBytes(US_ASCII));
      }
      for (int n = 0; n < DELETES; n++) {
        db.delete(("key:" + n).getBytes(US_ASCII));
      }
    }
  }

  @Test
  void describesTheStoreAsWritten() throws Exception {
    StoreDirectory store = StoreDirectory.list(dir);
    assertTrue(store.segments().size() > 1, store.toString());
    assertEquals(1, store.checkpoints().size(), store.toString());

    StoreMetaFile meta = StoreMetaFile.read(store.metaFile());
    assertEquals(4, meta.shards());
    assertEquals(1, meta.major());

    long puts = 0;
    long deletes = 0;
    for (Path path : store.segments()) {
      try (SegmentFile segment = SegmentFile.open(path)) {
        assertNull(segment.headerProblem());
        assertTrue(segment.sealed());
        long[] counts = new long[2];
        SegmentScan scan = segment.scan(r -> counts[r.isDelete() ? 1 : 0]++);
        assertTrue(scan.damage().isEmpty(), scan.toString());
        assertEquals(counts[0] + counts[1], scan.records());
        puts += counts[0];
        deletes += counts[1];
      }
    }
    assertEquals(PUTS, puts);
    assertEquals(DELETES, deletes);

    CheckpointFile checkpoint = CheckpointFile.read(store.checkpoints().getFirst(), meta.shards());
    assertEquals(PUTS - DELETES, checkpoint.keys());
    assertEquals(4, checkpoint.shards());
    assertEquals(store.segmentIds().size(), checkpoint.segments().size());
    assertTrue(
        checkpoint.segments().stream()
            .allMatch(e -> store.segmentIds().contains(e.segmentId()) && !e.compacted()));
  }

  @Test
  void reportsADamagedRecordWhereItIs() throws Exception {
    Path path = StoreDirectory.list(dir).segments().getFirst();
    long[] second = new long[1];
    try (SegmentFile segment = SegmentFile.open(path)) {
      long[] seen = {0};
      segment.scan(
          r -> {
            if (seen[0]++ == 1) {
              second[0] = r.offset();
            }
          });
    }
    byte[] bytes = Files.readAllBytes(path);
    bytes[(int) second[0] + 12] ^= 0x5A;
    Files.write(path, bytes);
    try (SegmentFile segment = SegmentFile.open(path)) {
      SegmentScan scan = segment.scan(r -> {});
      assertEquals(1, scan.damage().size(), scan.toString());
      assertEquals(second[0], scan.damage().getFirst().offset());
      assertEquals("checksum mismatch", scan.damage().getFirst().reason());
    }
  }

  @Test
  void checkpointOfAnotherShardCountIsInvalid() throws Exception {
    Path checkpoint = StoreDirectory.list(dir).checkpoints().getFirst();
    CheckpointFile.Invalid e =
        assertThrows(CheckpointFile.Invalid.class, () -> CheckpointFile.read(checkpoint, 8));
    assertEquals(checkpoint.getFileName() + ": 4 shards, the store has 8", e.getMessage());
  }

  @Test
  void refusesAnImpossibleShardCountAsAnOpenDoes() throws Exception {
    rewriteMeta(b -> b.putInt(12, 3));
    StoreMetaFile.Unusable e =
        assertThrows(
            StoreMetaFile.Unusable.class, () -> StoreMetaFile.read(dir.resolve("cellar.meta")));
    assertEquals("cellar.meta: shard count 3 is not a power of two in [1, 4096]", e.getMessage());
    assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, options()).close());
  }

  @Test
  void refusesANewerMajorVersionAsAnOpenDoes() throws Exception {
    rewriteMeta(b -> b.putShort(8, (short) 2));
    StoreMetaFile.Unusable e =
        assertThrows(
            StoreMetaFile.Unusable.class, () -> StoreMetaFile.read(dir.resolve("cellar.meta")));
    assertTrue(e.getMessage().contains("version 2.0"), e.getMessage());
    assertThrows(IncompatibleFormatException.class, () -> Cellar.open(dir, options()).close());
  }

  @Test
  void refusesADamagedIdentityFileAsAnOpenDoes() throws Exception {
    Path meta = dir.resolve("cellar.meta");
    byte[] bytes = Files.readAllBytes(meta);
    bytes[20] ^= 1;
    Files.write(meta, bytes);
    StoreMetaFile.Unusable e =
        assertThrows(StoreMetaFile.Unusable.class, () -> StoreMetaFile.read(meta));
    assertEquals("cellar.meta: checksum mismatch", e.getMessage());
    assertThrows(CorruptStoreException.class, () -> Cellar.open(dir, options()).close());
  }

  /** An open reads the first 64 bytes and ignores the rest; so does the offline reader. */
  @Test
  void acceptsBytesPastTheIdentityAsAnOpenDoes() throws Exception {
    Path meta = dir.resolve("cellar.meta");
    byte[] bytes = Files.readAllBytes(meta);
    Files.write(meta, Arrays.copyOf(bytes, bytes.length + 1));
    assertEquals(4, StoreMetaFile.read(meta).shards());
    Cellar.open(dir, options()).close();
  }

  @Test
  void aMissingIdentityFileIsNamed() throws Exception {
    Files.delete(dir.resolve("cellar.meta"));
    StoreMetaFile.Unusable e =
        assertThrows(
            StoreMetaFile.Unusable.class, () -> StoreMetaFile.read(dir.resolve("cellar.meta")));
    assertFalse(e.getMessage().isEmpty());
    assertTrue(e.getMessage().startsWith("cellar.meta is missing"), e.getMessage());
  }

  private void rewriteMeta(java.util.function.Consumer<ByteBuffer> edit) throws IOException {
    Path meta = dir.resolve("cellar.meta");
    byte[] bytes = Files.readAllBytes(meta);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    edit.accept(b);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, 60);
    int c = (int) crc.getValue();
    b.putInt(60, ((c >>> 15) | (c << 17)) + 0xa282ead8);
    Files.write(meta, bytes);
  }
}
