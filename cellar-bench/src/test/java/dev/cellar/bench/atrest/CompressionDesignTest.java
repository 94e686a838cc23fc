package dev.cellar.bench.atrest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.bench.BenchCommand;
import dev.cellar.bench.workload.JsonDocuments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench at-rest --parts compression} alone on 500 documents, one round: every candidate's
 * row and model line in the JSON, no other part's fields; and every candidate reads every document
 * back byte for byte the way a GET would (its record, or its block and the entry in it). No timing
 * is asserted, only that there is a time.
 */
class CompressionDesignTest {
  private static final int DOCS = 500;

  @TempDir Path dir;

  @Test
  void runsAloneAndWritesEveryCandidateAndTheModel() throws Exception {
    Path json = dir.resolve("compression.json");
    Path markdown = dir.resolve("compression.md");
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "at-rest",
                "--parts",
                "compression",
                "--compression-docs",
                String.valueOf(DOCS),
                "--compression-rounds",
                "1",
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);
    JsonObject root = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
    assertFalse(root.has("results"), "the backup part did not run");
    assertFalse(root.has("codecs"), "the codec part did not run");
    JsonObject compression = root.getAsJsonObject("compression");
    assertEquals(DOCS, compression.get("documents").getAsInt());
    Set<String> candidates = new HashSet<>();
    for (JsonElement e : compression.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      assertTrue(row.get("size_ratio").getAsDouble() > 1, row.toString());
      assertTrue(row.get("compress_cpu_ns_per_doc").getAsDouble() > 0, row.toString());
      assertTrue(row.get("decompress_cpu_ns_per_frame").getAsDouble() > 0, row.toString());
      candidates.add(row.get("candidate").getAsString());
    }
    assertEquals(
        Set.of(
            "zstd-1 per record",
            "zstd-3 per record",
            "zstd-3 dict 16K per record",
            "zstd-3 dict 64K per record",
            "zstd-1 dict 64K per record",
            "zstd-3 dict 64K ffm per record",
            "lz4 per record",
            "lz4 dict 16K ffm per record",
            "lz4 dict 64K ffm per record",
            "zstd-3 per 4 KiB block",
            "zstd-3 per 16 KiB block",
            "zstd-3 per 64 KiB block",
            "lz4 per 4 KiB block",
            "lz4 per 16 KiB block",
            "lz4 per 64 KiB block"),
        candidates);
    assertEquals(2, compression.getAsJsonArray("dictionaries").size());
    // Nine per-record lines, and each of the six block candidates at three hit rates.
    assertEquals(9 + 6 * 3, compression.getAsJsonObject("model").getAsJsonArray("lines").size());
    assertTrue(compression.getAsJsonObject("gcm").get("decrypt_ns_per_op").getAsDouble() > 0);
    assertTrue(Files.readString(markdown).contains("**Model, not an engine measurement**"));
  }

  @Test
  void everyCandidateReadsEveryDocumentBackByteForByte() {
    List<byte[]> docs = JsonDocuments.generate(CompressionDesignRun.SEED, DOCS);
    List<ZstdDictionary> dictionaries = new ArrayList<>();
    for (int size : CompressionDesignRun.DICTIONARY_BYTES) {
      dictionaries.add(ZstdDictionary.train(docs, size));
    }
    List<CompressionCandidate> candidates = CompressionDesignRun.candidates(docs, dictionaries);
    assertEquals(15, candidates.size());
    for (CompressionCandidate c : candidates) {
      assertTrue(c.storedBytes() < c.rawBytes(), c.label() + " compresses");
      for (int d = 0; d < DOCS; d++) {
        assertArrayEquals(docs.get(d), c.read(d), c.label() + ", document " + d);
      }
    }
  }

  @Test
  void aDictionaryMakesSmallerRecords() {
    List<byte[]> docs = JsonDocuments.generate(CompressionDesignRun.SEED, DOCS);
    ZstdDictionary dictionary = ZstdDictionary.train(docs, 16 << 10);
    CompressionCandidate plain =
        CompressionCandidate.perRecord(new ZstdRecordCodec(3, null), null, docs);
    CompressionCandidate trained =
        CompressionCandidate.perRecord(
            new ZstdRecordCodec(3, dictionary.bytes()), dictionary, docs);
    assertTrue(
        trained.storedBytes() < plain.storedBytes(),
        trained.storedBytes() + " bytes with a dictionary, " + plain.storedBytes() + " without");
  }

  /**
   * The FFM binding writes the frames zstd-jni writes: an engine could switch without rewriting.
   */
  @Test
  void ffmAndJniDictionaryFramesReadEachOther() {
    List<byte[]> docs = JsonDocuments.generate(CompressionDesignRun.SEED, DOCS);
    byte[] dictionary = ZstdDictionary.train(docs, 16 << 10).bytes();
    Compression ffm = new ZstdFfmDictionaryCodec(3, dictionary);
    Compression jni = new ZstdRecordCodec(3, dictionary);
    byte[] frame = new byte[jni.maxCompressedLength(4096)];
    byte[] back = new byte[4096];
    for (byte[] doc : docs) {
      int n = ffm.compress(doc, 0, doc.length, frame, 0, frame.length);
      assertEquals(doc.length, jni.decompress(frame, 0, n, back, 0, back.length));
      assertArrayEquals(doc, Arrays.copyOf(back, doc.length));
      n = jni.compress(doc, 0, doc.length, frame, 0, frame.length);
      assertEquals(doc.length, ffm.decompress(frame, 0, n, back, 0, back.length));
      assertArrayEquals(doc, Arrays.copyOf(back, doc.length));
    }
  }

  @Test
  void anUnknownPartIsRefused() {
    int status =
        new CommandLine(new BenchCommand()).execute("at-rest", "--parts", "compression,zip");
    assertNotEquals(0, status);
  }
}
