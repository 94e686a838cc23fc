package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.log.Crc32c;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for segment recovery ({@code SegmentScanner}, {@code RecordView}, {@code Recovery}):
 * arbitrary bytes as the one segment of a store with no checkpoint, so that opening replays all of
 * it. The property is {@link StoreFiles}'s.
 *
 * <p>Seeds are segments the engine writes (sealed after a close, unsealed as a crash leaves them)
 * made by {@link #engineSegments()} at run time, so they follow the format as it changes; files in
 * {@code SegmentFileFuzzTestInputs} are inputs that once failed.
 *
 * <p>Most random changes to a header break its CRC and end the story there. When the input's
 * reserved header word (offset 56) is odd, the harness restamps the header CRC after the fuzzer's
 * changes, so that changed lengths, flags and kinds reach the code that trusts a sound header.
 */
class SegmentFileFuzzTest {
  private static final int RESTAMP_FLAG_OFFSET = 56;

  @MethodSource("engineSegments")
  @FuzzTest(maxDuration = "20s")
  void segmentFile(byte[] segment) {
    StoreFiles template = StoreFiles.template();
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("cellar.meta", StoreFiles.META);
    files.put(template.segmentName(), restampIfAsked(segment));
    StoreFiles.checkOpen(files, false);
  }

  static Stream<byte[]> engineSegments() {
    StoreFiles template = StoreFiles.template();
    byte[] sealed = template.files.get(template.segmentName());
    Map<String, byte[]> crashed = StoreFiles.write(StoreFiles::populate, false);
    byte[] unsealed =
        crashed.entrySet().stream()
            .filter(e -> e.getKey().startsWith("seg-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    byte[] restampable = sealed.clone();
    restampable[RESTAMP_FLAG_OFFSET] = 1;
    return Stream.of(
        sealed,
        trimZeros(unsealed),
        restamp(restampable),
        Arrays.copyOf(sealed, SegmentHeaderDescriptor.LENGTH),
        "CELLARLG".getBytes(UTF_8));
  }

  static byte[] restampIfAsked(byte[] segment) {
    if (segment.length < SegmentHeaderDescriptor.LENGTH
        || (segment[RESTAMP_FLAG_OFFSET] & 1) == 0) {
      return segment;
    }
    return restamp(segment.clone());
  }

  private static byte[] restamp(byte[] segment) {
    int crc = Crc32c.masked(MemorySegment.ofArray(segment), 0, SegmentHeaderDescriptor.CRC_OFFSET);
    ByteBuffer.wrap(segment)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(SegmentHeaderDescriptor.CRC_OFFSET, crc);
    return segment;
  }

  /** An unsealed segment is preallocated: the zeros after the last record add nothing to a seed. */
  private static byte[] trimZeros(byte[] segment) {
    int end = segment.length;
    while (end > SegmentHeaderDescriptor.LENGTH && segment[end - 1] == 0) {
      end--;
    }
    return Arrays.copyOf(segment, end);
  }
}
