package dev.cellar.recovery;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.log.Crc32c;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for checkpoint loading ({@code CheckpointReader}, and the index and recovery code
 * that trust what it accepts): arbitrary bytes as the checkpoint of a store whose segment is
 * intact. The property is {@link StoreFiles}'s: a checkpoint is only an accelerator, so a bad one
 * may be skipped (the log is replayed) but must never crash, hang or mislead the store.
 *
 * <p>A checkpoint is one CRC over nearly every byte, so a random change is almost always caught
 * there. When the input's reserved header word (offset 44) is odd, the harness restamps the file
 * length and both CRCs after the fuzzer's changes, as a buggy writer or a deliberate forger would:
 * then the fields themselves (shard sizes, slot words, segment entries, replay position) reach the
 * code that believes them.
 */
class CheckpointFileFuzzTest {
  private static final int RESTAMP_FLAG_OFFSET = 44;

  @MethodSource("engineCheckpoints")
  @FuzzTest(maxDuration = "20s")
  void checkpointFile(byte[] checkpoint) {
    StoreFiles template = StoreFiles.template();
    Map<String, byte[]> files = new LinkedHashMap<>(template.files);
    byte[] stored = restampIfAsked(checkpoint);
    files.put(template.checkpointName(), stored);
    StoreFiles.checkOpen(files, stored != checkpoint);
  }

  static Stream<byte[]> engineCheckpoints() {
    StoreFiles template = StoreFiles.template();
    byte[] written = template.files.get(template.checkpointName());
    byte[] restampable = written.clone();
    restampable[RESTAMP_FLAG_OFFSET] = 1;
    return Stream.of(
        written, restamp(restampable), Arrays.copyOf(written, CheckpointDescriptor.HEADER_LENGTH));
  }

  static byte[] restampIfAsked(byte[] checkpoint) {
    if (checkpoint.length < CheckpointDescriptor.HEADER_LENGTH
        || (checkpoint[RESTAMP_FLAG_OFFSET] & 1) == 0) {
      return checkpoint;
    }
    return restamp(checkpoint.clone());
  }

  private static byte[] restamp(byte[] c) {
    MemorySegment m = MemorySegment.ofArray(c);
    ByteBuffer b = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(CheckpointDescriptor.FILE_LENGTH_OFFSET, c.length);
    int h = CheckpointDescriptor.HEADER_LENGTH;
    b.putInt(CheckpointDescriptor.BODY_CRC_OFFSET, Crc32c.masked(m, h, c.length - h));
    b.putInt(
        CheckpointDescriptor.HEADER_CRC_OFFSET,
        Crc32c.masked(m, 0, CheckpointDescriptor.HEADER_CRC_OFFSET));
    return c;
  }
}
