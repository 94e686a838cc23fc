package dev.cellar.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.airlift.compress.v3.zstd.ZstdNativeCompressor;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The codec benchmark's data set: the same seed gives the same bytes, the documents are JSON
 * objects of about 1 KB, and they compress as the benchmark's description says (zstd level 3, the
 * level it measures): a little alone, 3x to 5x in 64 KiB blocks. No timing.
 */
class JsonDocumentsTest {
  private static final int COUNT = 2_000;

  @Test
  void theSameSeedGivesTheSameDocumentsAndAnotherSeedOthers() {
    List<byte[]> first = JsonDocuments.generate(42, COUNT);
    List<byte[]> again = JsonDocuments.generate(42, COUNT);
    JsonDocuments stream = new JsonDocuments(42);
    for (int i = 0; i < COUNT; i++) {
      assertArrayEquals(first.get(i), again.get(i), "document " + i);
      assertArrayEquals(first.get(i), stream.next(), "document " + i + " from next()");
    }
    List<byte[]> other = JsonDocuments.generate(43, COUNT);
    long same = 0;
    for (int i = 0; i < COUNT; i++) {
      same += Arrays.equals(first.get(i), other.get(i)) ? 1 : 0;
    }
    assertEquals(0, same, "documents of seed 43 equal to seed 42's");
    assertEquals(COUNT, first.stream().map(Arrays::hashCode).distinct().count(), "duplicates");
  }

  @Test
  void documentsAreJsonObjectsOfAboutOneKilobyte() {
    List<byte[]> documents = JsonDocuments.generate(7, COUNT);
    long total = 0;
    for (byte[] d : documents) {
      JsonObject o =
          JsonParser.parseString(new String(d, StandardCharsets.UTF_8)).getAsJsonObject();
      assertTrue(o.get("id").getAsString().startsWith("ord_"), o.toString());
      assertTrue(o.getAsJsonObject("customer").has("address"), o.toString());
      assertTrue(!o.getAsJsonArray("items").isEmpty(), o.toString());
      assertTrue(d.length >= 700 && d.length <= 1_600, "document of " + d.length + " bytes");
      total += d.length;
    }
    double mean = (double) total / COUNT;
    assertTrue(mean >= 950 && mean <= 1_250, "mean size " + mean);
  }

  @Test
  void documentsCompressLittleAloneAndThreeToFiveTimesInBlocks() {
    List<byte[]> documents = JsonDocuments.generate(7, COUNT);
    ZstdNativeCompressor zstd = new ZstdNativeCompressor(3);
    long raw = 0;
    long alone = 0;
    for (byte[] d : documents) {
      raw += d.length;
      alone += compressedSize(zstd, d);
    }
    double perDocument = (double) raw / alone;
    assertTrue(perDocument > 1.3 && perDocument < 2.5, "one by one: " + perDocument + "x");
    long blocked = 0;
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    for (byte[] d : documents) {
      if (block.size() + d.length > 64 << 10) {
        blocked += compressedSize(zstd, block.toByteArray());
        block.reset();
      }
      block.writeBytes(d);
    }
    blocked += compressedSize(zstd, block.toByteArray());
    double inBlocks = (double) raw / blocked;
    assertTrue(inBlocks >= 3 && inBlocks <= 5.5, "in 64 KiB blocks: " + inBlocks + "x");
  }

  private static int compressedSize(ZstdNativeCompressor zstd, byte[] in) {
    byte[] out = new byte[zstd.maxCompressedLength(in.length)];
    return zstd.compress(in, 0, in.length, out, 0, out.length);
  }
}
