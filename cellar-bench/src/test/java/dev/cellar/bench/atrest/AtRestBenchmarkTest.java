package dev.cellar.bench.atrest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.bench.BenchCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The whole command on a small store: a real s3proxy in a child JVM, both clients, cp; every
 * transfer checked byte for byte; the JSON has a positive rate for each client both ways, and the
 * run directory is removed. The codec part runs too (both parts are the default) on a few
 * documents, and leaves the backup part's rows as they were.
 */
class AtRestBenchmarkTest {
  @TempDir Path dir;

  @Test
  void backsUpAndRestoresWithBothClientsAndWritesTheJson() throws Exception {
    Path json = dir.resolve("at-rest.json");
    Path markdown = dir.resolve("at-rest.md");
    Path runs = Files.createDirectories(dir.resolve("runs"));
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "at-rest",
                "--size-mb",
                "12",
                "--rounds",
                "1",
                "--part-mb",
                "5",
                "--docs",
                "300",
                "--codec-rounds",
                "1",
                "--dir",
                runs.toString(),
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);
    JsonObject root = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
    Set<String> rows = new HashSet<>();
    for (JsonElement e : root.getAsJsonArray("results")) {
      JsonObject row = e.getAsJsonObject();
      assertTrue(row.get("value").getAsDouble() > 0, row.toString());
      rows.add(row.get("op").getAsString() + "/" + row.get("client").getAsString());
    }
    assertEquals(
        Set.of(
            "backup/cellar",
            "backup/aws-sdk-v2",
            "backup/cp",
            "restore/cellar",
            "restore/aws-sdk-v2",
            "restore/cp"),
        rows);
    assertTrue(Files.readString(markdown).contains("| backup, Cellar / AWS SDK | ≥ 1.3x |"));
    assertTrue(root.getAsJsonObject("codecs").getAsJsonArray("rows").size() > 0, "both parts ran");
    try (var left = Files.list(runs)) {
      assertEquals(0, left.count(), "the run directory is removed");
    }
  }
}
