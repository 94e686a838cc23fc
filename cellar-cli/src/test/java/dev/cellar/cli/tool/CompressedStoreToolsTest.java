package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.log.CodecBlockDescriptor;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tools on a compressed store, plaintext and encrypted: {@code verify} names each compressed
 * segment's codec and dictionary in its state, {@code dump} prints the values as they were written
 * (decompressed, and decrypted with the key), and a damaged codec block is an ERROR finding, not a
 * clean bill or a crash.
 */
class CompressedStoreToolsTest {
  @TempDir Path dir;

  private static final String KEY =
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  /** Matches the state verify prints for a compressed segment: codec, dictionary id and size. */
  private static final Pattern COMPRESSED_STATE =
      Pattern.compile("(zstd|lz4) dictionary ([0-9a-f]+) \\((\\d+) bytes\\)");

  private Path keyFile;

  private CellarOptions options(Compression codec, boolean encrypted) throws IOException {
    CellarOptions options = TestStore.options().compression(codec);
    if (encrypted) {
      keyFile = Files.writeString(dir.resolve("store.key"), "1 " + KEY + "\n");
      options = options.encryptionKeyFile(keyFile);
    }
    return options;
  }

  /**
   * The test store's records, then compaction until it has compressed the sealed segments (it
   * trains a dictionary on their values first).
   */
  private Path compressedStore(Compression codec, boolean encrypted) throws IOException {
    Path store = Files.createDirectories(dir.resolve("store"));
    try (Cellar db = Cellar.open(store, options(codec, encrypted))) {
      for (int n = 0; n < TestStore.PUTS; n++) {
        db.put(TestStore.key(n), TestStore.value(n));
      }
      for (int n = 0; n < TestStore.DELETES; n++) {
        db.delete(TestStore.key(n * 2));
      }
      for (int pass = 0; pass < 10 && db.compact() > 0; pass++) {
        // each pass takes the segments it finds worth it; a few are enough for a small store
      }
    }
    assertTrue(!compressedSegments(store).isEmpty(), "compaction compressed no segment");
    return store;
  }

  private List<Path> compressedSegments(Path store) throws IOException {
    List<Path> compressed = new ArrayList<>();
    for (Path segment : TestStore.segments(store)) {
      try (SegmentFile file = SegmentFile.open(segment)) {
        if (file.compressed()) {
          compressed.add(segment);
        }
      }
    }
    return compressed;
  }

  private String[] withKey(String... args) {
    if (keyFile == null) {
      return args;
    }
    List<String> all = new ArrayList<>(List.of(args));
    all.add(2, "--encryption-key-file");
    all.add(3, keyFile.toString());
    return all.toArray(String[]::new);
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"ZSTD", "LZ4"})
  void verifyShowsTheCodecAndDumpPrintsTheValues(Compression codec) throws Exception {
    checkTools(codec, false);
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"ZSTD", "LZ4"})
  void theSameOnAnEncryptedStore(Compression codec) throws Exception {
    checkTools(codec, true);
  }

  private void checkTools(Compression codec, boolean encrypted) throws Exception {
    Path store = compressedStore(codec, encrypted);
    int compressed = compressedSegments(store).size();

    CommandRun verify = CommandRun.of(withKey("tool", "verify", store.toString()));
    assertEquals(CellarCommand.EXIT_OK, verify.exitCode(), verify.toString());
    Matcher state = COMPRESSED_STATE.matcher(verify.out());
    int shown = 0;
    while (state.find()) {
      shown++;
      assertEquals(codec.label(), state.group(1), verify.toString());
      assertTrue(Integer.parseInt(state.group(3)) > 0, verify.toString());
    }
    assertEquals(compressed, shown, "a state per compressed segment: " + verify);
    if (encrypted) {
      assertTrue(verify.out().contains("key 1, " + codec.label()), verify.toString());
    }

    CommandRun dump = CommandRun.of(withKey("tool", "dump", "--values", store.toString()));
    assertEquals(CellarCommand.EXIT_OK, dump.exitCode(), dump.toString());
    String out = dump.out();
    for (int n = 1; n < TestStore.PUTS; n += 2) {
      String line = "\"user:" + n + "\" \"" + new String(TestStore.value(n)) + "\"";
      assertTrue(out.contains(line + "\n"), "no record line ends with " + line);
    }
    // A value the dump did not decompress would be printed as its frame's bytes, escaped.
    assertFalse(out.contains("\\x"), "a value printed undecompressed:\n" + firstEscaped(out));
  }

  @Test
  void aDamagedCodecBlockIsAnError() throws Exception {
    Path store = compressedStore(Compression.ZSTD, false);
    Path segment = compressedSegments(store).getFirst();
    long dictionaryByte =
        SegmentHeaderDescriptor.PLAIN_DATA_START + CodecBlockDescriptor.DICT_OFFSET + 100;
    TestStore.flipByte(segment, dictionaryByte);

    CommandRun verify = CommandRun.of("tool", "verify", store.toString());

    assertEquals(CellarCommand.EXIT_FAILURE, verify.exitCode(), verify.toString());
    String name = segment.getFileName().toString();
    assertTrue(
        verify
            .out()
            .contains(
                "ERROR "
                    + name
                    + ": codec block unusable (codec block checksum mismatch): its compressed"
                    + " values cannot be read"),
        verify.toString());
    assertTrue(verify.out().contains("compressed (codec block unusable)"), verify.toString());
  }

  private static String firstEscaped(String out) {
    for (String line : out.split("\n")) {
      if (line.contains("\\x")) {
        return line;
      }
    }
    return "";
  }
}
