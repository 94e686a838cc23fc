package dev.cellar.store;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.checkpoint.SegmentEntry;
import dev.cellar.io.FileIO;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked examples of {@code docs/format/meta.md} and {@code docs/format/checkpoint.md}, byte
 * for byte. Writers and readers share their descriptor, so a wrong offset in a descriptor would
 * survive every round trip; the documented bytes catch it, and keep the documents true.
 */
class FormatExamplesTest {
  /** The SipHash test key 00 01 .. 0f, as the examples' hash seed. */
  private static final long SEED0 = 0x0706050403020100L;

  private static final long SEED1 = 0x0f0e0d0c0b0a0908L;

  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  @TempDir Path dir;

  @Test
  void metaExampleIsWhatTheWriterWrites() throws IOException {
    new StoreMetaDescriptor(256, SEED0, SEED1, 1767225600000L).write(FileIO.platform(), dir);
    byte[] expected =
        HexFormat.of()
            .parseHex(
                "43454c4c41524d540100000000010000"
                    + "000102030405060708090a0b0c0d0e0f"
                    + "00a8da769b0100000000000000000000"
                    + "000000000000000000000000461d6b47");
    byte[] written = Files.readAllBytes(dir.resolve(StoreMetaDescriptor.FILE_NAME));
    assertArrayEquals(expected, written);
    StoreMetaDescriptor read = StoreMetaDescriptor.read(FileIO.platform(), dir);
    assertEquals(new StoreMetaDescriptor(256, SEED0, SEED1, 1767225600000L), read);
  }

  @Test
  void checkpointExampleIsWhatTheWriterWrites() throws IOException {
    new StoreMetaDescriptor(1, SEED0, SEED1, 1767225600000L).write(FileIO.platform(), dir);
    CellarOptions options =
        CellarOptions.defaults()
            .shards(1)
            .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
            .maxKeyBytes(1 << 10)
            .maxValueBytes(16 << 10);
    try (Cellar db = Cellar.open(dir, options)) {
      db.put(bytes("user:42"), bytes("hello"));
      db.putWithExpiry(bytes("user:43"), bytes("bye"), 1893456000000L);
      db.put(bytes("tmp"), bytes("x"));
      db.delete(bytes("tmp"));
    }
    MemorySegment file =
        MemorySegment.ofArray(Files.readAllBytes(dir.resolve(CheckpointDescriptor.fileName(1))));

    assertEquals(12352, file.byteSize());
    assertNull(CheckpointDescriptor.validateHeader(file, "checkpoint", /* expectedShards= */ 1));
    assertEquals(
        "4345 4c4c 4152 434b 0100 0100 0100 0000",
        hexLine(file, 0),
        "magic, version 1.1, one shard");
    assertEquals(1, CheckpointDescriptor.replayFromSegment(file));
    assertEquals(133, CheckpointDescriptor.replayFromOffset(file));
    assertEquals(5, CheckpointDescriptor.nextSeq(file));
    assertEquals(1, CheckpointDescriptor.segmentCount(file));
    assertEquals(12352, CheckpointDescriptor.fileLength(file));
    assertEquals(0x753fd5f2, file.get(INT, CheckpointDescriptor.BODY_CRC_OFFSET));
    assertEquals(0xb2e32f43, file.get(INT, CheckpointDescriptor.HEADER_CRC_OFFSET));

    long shard0 = CheckpointDescriptor.FIRST_SHARD_OFFSET;
    assertEquals(1024, CheckpointDescriptor.slotCount(file, shard0));
    assertEquals(2, CheckpointDescriptor.keyCount(file, shard0));
    assertEquals(0, CheckpointDescriptor.elementCount(file, shard0));
    assertEquals(4096, CheckpointDescriptor.slotsOffset(shard0));
    assertEquals("5400 0000 0080 917c", hexLine(file, 4096 + 8 * 498).substring(0, 19));
    assertEquals("4000 0000 00dc 34a5", hexLine(file, 4096 + 8 * 660).substring(0, 19));

    long entries = CheckpointDescriptor.entriesOffset(file.byteSize(), 1);
    assertEquals(12288, entries);
    assertEquals(
        new SegmentEntry(1, 0, SegmentHeaderDescriptor.KIND_LOG, 23, 26, 1893456000000L, 1, 4),
        CheckpointDescriptor.readEntry(file, entries));
    assertEquals("0100 0000 0000 0000 0000 0000 0100 0000", hexLine(file, 12288), "id, slot, kind");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(US_ASCII);
  }

  /** 16 bytes from {@code offset} as xxd shows them. */
  private static String hexLine(MemorySegment file, long offset) {
    String hex = HexFormat.of().formatHex(file.asSlice(offset, 16).toArray(ValueLayout.JAVA_BYTE));
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < hex.length(); i += 4) {
      line.append(i == 0 ? "" : " ").append(hex, i, i + 4);
    }
    return line.toString();
  }
}
