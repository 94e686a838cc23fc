package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.log.Crc32c;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.recovery.CorruptionTest.Located;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefix rule (docs/format/log.md): a power loss may write a later page of the log's unsynced
 * tail back and lose an earlier one, and an open then ends the log at the first gap, so that no
 * write survives one made before it that was lost. Each case is a store image copied while the
 * store was open (its newest segment unsealed, as after a crash), with the lost bytes zeroed.
 */
class PrefixRuleTest {
  @TempDir Path root;

  private static final CellarOptions OPTIONS = CorruptionTest.OPTIONS;

  private static byte[] key(int i) {
    return ("key" + i).getBytes(UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i + "-" + "v".repeat(200)).getBytes(UTF_8);
  }

  /** A crash image of a store holding keys 0 to {@code keys - 1}, written in that order. */
  private Path image(String name, int keys, CellarOptions options) throws IOException {
    Path live = root.resolve(name + "-live");
    Path image = root.resolve(name);
    try (Cellar db = Cellar.open(live, options)) {
      for (int i = 0; i < keys; i++) {
        db.put(key(i), value(i));
      }
      db.sync();
      CorruptionTest.copyDir(live, image);
    }
    return image;
  }

  private static void zero(Located record) throws IOException {
    try (FileChannel ch = FileChannel.open(record.file(), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate((int) record.length()), record.offset());
    }
  }

  private static int keyNumber(Located record) {
    return Integer.parseInt(record.key().substring(3));
  }

  /**
   * Rewrites a segment's header as the writer left it before sealing (flags {@code flags}, no
   * sealed length or seq range), as a crash between the roll and the seal leaves it.
   */
  private static void rewriteHeader(Path file, short flags) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer header =
          ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(header, 0);
      header.putShort(SegmentHeaderDescriptor.FLAGS_OFFSET, flags);
      header.putLong(SegmentHeaderDescriptor.SEALED_LENGTH_OFFSET, 0);
      header.putLong(SegmentHeaderDescriptor.MIN_SEQ_OFFSET, 0);
      header.putLong(SegmentHeaderDescriptor.MAX_SEQ_OFFSET, 0);
      header.putInt(
          SegmentHeaderDescriptor.CRC_OFFSET,
          Crc32c.masked(header.array(), 0, SegmentHeaderDescriptor.CRC_OFFSET));
      ch.write(header.flip(), 0);
    }
  }

  private static void assertKeys(Cellar db, int presentBelow, int keys, String where) {
    for (int i = 0; i < keys; i++) {
      if (i < presentBelow) {
        assertArrayEquals(value(i), db.get(key(i)), where + ": key" + i);
      } else {
        assertNull(db.get(key(i)), where + ": key" + i + " survived a write lost before it");
      }
    }
  }

  @Test
  void aLostRecordEndsTheLogThoughLaterOnesReachedTheDisk() throws IOException {
    int keys = 200;
    Path image = image("hole", keys, OPTIONS);
    List<Located> records = CorruptionTest.records(image);
    assertEquals(keys, records.size());
    Located lost = records.get(120);
    zero(lost);
    int cut = keyNumber(lost);
    try (Cellar db = Cellar.open(image, OPTIONS)) {
      assertKeys(db, cut, keys, "first open");
      assertNoted(db, "the log ends at the first gap");
      assertTrue(db.recoveryReport().fatal().isEmpty());
      db.put(key(cut), value(cut)); // the store writes on after the cut
    }
    try (Cellar db = Cellar.open(image, OPTIONS)) {
      assertKeys(db, cut + 1, keys, "second open");
      assertTrue(db.recoveryReport().fatal().isEmpty(), db.recoveryReport().toString());
    }
  }

  @Test
  void aSegmentWhoseLastRecordWasLostEndsTheLogBeforeTheNextSegment() throws IOException {
    CellarOptions small =
        OPTIONS.segmentBytes(CellarOptions.MIN_SEGMENT_BYTES).maxKeyBytes(1024).maxValueBytes(1024);
    int keys = 1200; // about four segments of 64 KiB
    Path image = image("roll", keys, small);
    List<Located> records = CorruptionTest.records(image);
    Path newest = records.getLast().file();
    Located lastOfPrevious = null;
    for (Located r : records) {
      if (!r.file().equals(newest)) {
        lastOfPrevious = r;
      }
    }
    // The previous segment unsealed, as when the crash came before its seal, and its last record
    // never written back: its end reads as zeros, like the clean end of a log. Only the seqs tell.
    rewriteHeader(lastOfPrevious.file(), SegmentHeaderDescriptor.FLAG_PREFIX);
    zero(lastOfPrevious);
    int cut = keyNumber(lastOfPrevious);
    try (Cellar db = Cellar.open(image, small)) {
      assertKeys(db, cut, keys, "first open");
      assertNoted(db, "the records between were lost");
      assertTrue(db.recoveryReport().fatal().isEmpty(), db.recoveryReport().toString());
    }
    try (Cellar db = Cellar.open(image, small)) {
      assertKeys(db, cut, keys, "second open");
    }
  }

  @Test
  void aSegmentWrittenBeforeTheRuleStillStepsOverAHole() throws IOException {
    int keys = 200;
    Path image = image("legacy", keys, OPTIONS);
    List<Located> records = CorruptionTest.records(image);
    Located lost = records.get(120);
    rewriteHeader(lost.file(), (short) 0); // what earlier writers wrote: no PREFIX flag
    zero(lost);
    try (Cellar db = Cellar.open(image, OPTIONS)) {
      for (int i = 0; i < keys; i++) {
        if (i == keyNumber(lost)) {
          assertNull(db.get(key(i)));
        } else {
          assertArrayEquals(value(i), db.get(key(i)), "key" + i);
        }
      }
      assertNoted(db, "hole");
    }
  }

  /** The open's recovery report has a note saying {@code phrase}. */
  private static void assertNoted(Cellar db, String phrase) {
    assertTrue(
        db.recoveryReport().notes().stream().anyMatch(n -> n.contains(phrase)),
        db.recoveryReport().toString());
  }
}
