package dev.cellar.bench.atrest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.bench.BenchCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench at-rest --parts codecs} alone on a few hundred documents: every row measured (each
 * codec's round trip is checked before it is timed), the target judged against each zstd, and no
 * backup fields in the JSON. No timing is asserted, only that there is a time.
 */
class CodecCpuTest {
  @TempDir Path dir;

  @Test
  void runsAloneAndWritesEveryRowAndTheTargets() throws Exception {
    Path json = dir.resolve("codecs.json");
    Path markdown = dir.resolve("codecs.md");
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "at-rest",
                "--parts",
                "codecs",
                "--docs",
                "300",
                "--codec-rounds",
                "1",
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);
    JsonObject root = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
    assertFalse(root.has("results"), "the backup part did not run");
    JsonObject codecs = root.getAsJsonObject("codecs");
    Set<String> rows = new HashSet<>();
    for (JsonElement e : codecs.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      assertTrue(row.get("cpu_ns_per_doc").getAsDouble() > 0, row.toString());
      rows.add(
          String.join(
              " ",
              row.get("codec").getAsString(),
              row.get("op").getAsString(),
              row.get("unit").getAsString(),
              row.get("library").getAsString().split(" ")[0]));
    }
    for (String op : new String[] {"compress", "decompress"}) {
      for (String unit : new String[] {"record", "block"}) {
        assertTrue(
            rows.contains("zstd-3 " + op + " " + unit + " aircompressor-v3"), rows::toString);
        assertTrue(rows.contains("zstd-3 " + op + " " + unit + " zstd-jni"), rows::toString);
      }
      assertTrue(rows.contains("lz4 " + op + " record aircompressor-v3"), rows::toString);
    }
    assertTrue(rows.contains("aes-256-gcm encrypt record JDK"), rows::toString);
    assertTrue(rows.contains("aes-256-gcm decrypt record JDK"), rows::toString);
    assertTrue(rows.contains("aes-256-gcm encrypt zstd record JDK"), rows::toString);
    // The engine's own codec, per record with a trained dictionary, is a target row too.
    for (String op : List.of("compress", "decompress")) {
      assertTrue(
          rows.stream().anyMatch(r -> r.startsWith("zstd-3 dict 16K ffm " + op + " record")),
          rows::toString);
    }
    assertEquals(5, codecs.getAsJsonArray("targets").size(), "encryption against each zstd");
    for (JsonElement e : codecs.getAsJsonArray("targets")) {
      assertTrue(e.getAsJsonObject().get("measured").getAsDouble() > 0, e.toString());
    }
    assertTrue(Files.readString(markdown).contains("| CPU ratio | required | measured | met |"));
  }

  @Test
  void anUnknownPartIsRefused() {
    int status = new CommandLine(new BenchCommand()).execute("at-rest", "--parts", "codecs,zip");
    assertNotEquals(0, status);
  }
}
