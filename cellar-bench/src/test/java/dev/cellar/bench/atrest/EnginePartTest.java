package dev.cellar.bench.atrest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeyException;
import dev.cellar.EncryptionKeys;
import dev.cellar.bench.BenchCommand;
import dev.cellar.bench.workload.JsonDocuments;
import dev.cellar.inspect.StoreDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench at-rest --parts engine} on 2,000 documents, one round: every row in the JSON with a
 * positive rate and CPU time for both stores, no other part's fields; then, from the stores the run
 * leaves with {@code --keep-data}, GETs return the documents byte for byte in both (the overwritten
 * keys the next document), the plain store's segments hold a document in the clear and the
 * encrypted store's do not, and the encrypted store will not open without its key.
 */
class EnginePartTest {
  private static final int DOCS = 2_000;

  @TempDir Path dir;

  @Test
  void measuresEveryRowOnBothStoresAndLeavesStoresThatReadBack() throws Exception {
    Path json = dir.resolve("engine.json");
    Path markdown = dir.resolve("engine.md");
    Path runs = Files.createDirectories(dir.resolve("runs"));
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "at-rest",
                "--parts",
                "engine",
                "--engine-docs",
                String.valueOf(DOCS),
                "--engine-rounds",
                "1",
                "--dir",
                runs.toString(),
                "--keep-data",
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);

    JsonObject root = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
    assertFalse(root.has("results") || root.has("codecs"), "only the engine part ran");
    JsonObject engine = root.getAsJsonObject("engine");
    assertEquals(DOCS, engine.get("documents").getAsInt());
    Set<String> rows = new TreeSet<>();
    for (JsonElement e : engine.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      rows.add(row.get("row").getAsString());
      for (String store : new String[] {"plain", "encrypted"}) {
        JsonObject side = row.getAsJsonObject(store);
        assertTrue(side.get("ops_per_s").getAsDouble() > 0, row.toString());
        assertTrue(side.get("cpu_ns_per_op").getAsDouble() > 0, row.toString());
        assertTrue(side.get("ops").getAsLong() > 0, row.toString());
      }
      assertTrue(row.get("cpu_ratio").getAsDouble() > 0, row.toString());
      assertTrue(row.get("aes_gcm_ns_per_op").getAsDouble() > 0, row.toString());
    }
    assertEquals(Set.of("compaction", "get", "getAll", "load", "recovery"), rows);
    JsonObject recovery = row(engine, "recovery");
    for (String store : new String[] {"plain", "encrypted"}) {
      long replayed = recovery.getAsJsonObject(store).get("ops").getAsLong();
      assertTrue(
          replayed >= DOCS, "every key's record replayed, and the garbage left: " + replayed);
    }
    assertTrue(Files.readString(markdown).contains("| load | doc |"));

    Path runDir;
    try (Stream<Path> kept = Files.list(runs)) {
      runDir = kept.findFirst().orElseThrow();
    }
    List<byte[]> docs = JsonDocuments.generate(EngineRun.SEED, DOCS);
    EncryptionKeys key = EncryptionKeys.load(runDir.resolve("encryption.key"));
    readsBack(runDir.resolve("plain"), CellarOptions.defaults(), docs);
    readsBack(runDir.resolve("encrypted"), CellarOptions.defaults().encryptionKeys(key), docs);

    byte[] clear = new String(docs.get(1), StandardCharsets.UTF_8).substring(0, 40).getBytes();
    assertTrue(segmentsContain(runDir.resolve("plain"), clear), "the plain store is in the clear");
    assertFalse(segmentsContain(runDir.resolve("encrypted"), clear), "the encrypted one is not");
    assertThrows(EncryptionKeyException.class, () -> Cellar.open(runDir.resolve("encrypted")));
  }

  private static JsonObject row(JsonObject engine, String name) {
    for (JsonElement e : engine.getAsJsonArray("rows")) {
      if (e.getAsJsonObject().get("row").getAsString().equals(name)) {
        return e.getAsJsonObject();
      }
    }
    throw new AssertionError("no row " + name);
  }

  /** Every 97th key, the first and the last, against the documents after the overwrite. */
  private static void readsBack(Path store, CellarOptions options, List<byte[]> docs) {
    List<Integer> picks = new ArrayList<>(List.of(0, 1, DOCS - 1));
    for (int n = 97; n < DOCS; n += 97) {
      picks.add(n);
    }
    try (Cellar db = Cellar.open(store, options)) {
      assertEquals(DOCS, db.size(), store.toString());
      for (int n : picks) {
        byte[] expected = n % 2 == 0 ? docs.get((n + 1) % DOCS) : docs.get(n);
        assertArrayEquals(
            expected, db.get(("doc:" + n).getBytes(StandardCharsets.UTF_8)), "doc:" + n);
      }
    }
  }

  private static boolean segmentsContain(Path store, byte[] needle) throws Exception {
    for (Path segment : StoreDirectory.list(store).segments()) {
      byte[] bytes = Files.readAllBytes(segment);
      for (int i = 0; i + needle.length <= bytes.length; i++) {
        if (java.util.Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
          return true;
        }
      }
    }
    return false;
  }
}
