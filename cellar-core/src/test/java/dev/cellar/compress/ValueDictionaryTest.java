package dev.cellar.compress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Compression;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ValueDictionary#maxDecompressedLength} is what readers hold a compressed value's stated
 * length to; a bound too tight would refuse values compaction wrote honestly. The values that
 * compress best (runs of one byte, a value equal to the dictionary) stay within it, at every size
 * up to a megabyte.
 */
class ValueDictionaryTest {
  private static final int[] SIZES = {16, 100, 4096, 128 << 10, (128 << 10) + 1, 1 << 20};

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"ZSTD", "LZ4"})
  void theMostCompressibleValuesStayWithinTheBound(Compression codec) {
    byte[] pattern = new byte[4096];
    new Random(7).nextBytes(pattern);
    ValueDictionary none = new ValueDictionary(1, codec, new byte[0], 0);
    ValueDictionary ofPattern = new ValueDictionary(2, codec, pattern, 1);
    for (int size : SIZES) {
      byte[] zeros = new byte[size];
      roundTrip(none, zeros);
      roundTrip(ofPattern, zeros);
      byte[] repeated = new byte[size];
      for (int i = 0; i < size; i++) {
        repeated[i] = pattern[i % pattern.length];
      }
      roundTrip(ofPattern, repeated);
    }
    roundTrip(ofPattern, pattern);
  }

  private static void roundTrip(ValueDictionary d, byte[] value) {
    byte[] frame = new byte[d.maxCompressedLength(value.length)];
    int n = d.compress(value, 0, value.length, frame, 0, frame.length);
    assertTrue(n > 0, "compressed " + value.length + " bytes");
    long bound = ValueDictionary.maxDecompressedLength(d.codec(), n);
    assertTrue(
        value.length <= bound,
        d.codec() + ": " + value.length + " bytes in a frame of " + n + ", bound " + bound);
    byte[] out = new byte[value.length];
    assertTrue(d.decompress(frame, 0, n, out, 0, out.length));
    assertArrayEquals(value, out);
  }
}
