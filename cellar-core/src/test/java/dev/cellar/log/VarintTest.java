package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The word decoder ({@link Varint#wordStops}, {@link Varint#wordField}) reads the varints packed in
 * seven bytes as the byte-wise {@link Varint#read} does, for every split of the seven bytes among
 * three varints and for random bytes.
 */
class VarintTest {
  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  @Test
  void wordDecoderReadsWhatTheByteDecoderReads() {
    Random random = new Random(41);
    MemorySegment bytes = MemorySegment.ofArray(new byte[16]);
    int compared = 0;
    for (int i = 0; i < 200_000; i++) {
      if (i % 2 == 0) {
        // Three varints written by the encoder, of random lengths; what is left of the word random.
        for (int b = 0; b < 16; b++) {
          bytes.set(ValueLayout.JAVA_BYTE, b, (byte) random.nextInt());
        }
        long at = 0;
        for (int field = 0; field < 3; field++) {
          at = Varint.write(bytes, at, random.nextLong(1L << (1 + random.nextInt(20))));
        }
      } else {
        // Random bytes, with continuation bits denser than half, so long varints come up.
        for (int b = 0; b < 16; b++) {
          int v = random.nextInt(256);
          bytes.set(
              ValueLayout.JAVA_BYTE, b, (byte) (random.nextInt(4) == 0 ? v & 0x7F : v | 0x80));
        }
      }
      long word = bytes.get(LE, 0) & 0x00FF_FFFF_FFFF_FFFFL;
      long stops = Varint.wordStops(word);
      int after = -1;
      long offset = 0;
      for (int field = 0; field < 3 && stops != 0; field++) {
        int end = Long.numberOfTrailingZeros(stops);
        stops &= stops - 1;
        long read = Varint.read(bytes, offset, 7, Varint.MAX_LONG_BYTES);
        assertEquals(
            read >>> 8, Varint.wordField(word, after, end), "sample " + i + " field " + field);
        assertEquals(read & 0xFF, (end - after) >>> 3, "sample " + i + " field " + field);
        offset += read & 0xFF;
        after = end;
        compared++;
      }
    }
    assertEquals(true, compared > 300_000, "fields compared: " + compared);
  }
}
