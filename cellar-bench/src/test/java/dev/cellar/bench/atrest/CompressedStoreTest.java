package dev.cellar.bench.atrest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.bench.BenchCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The compressed-store part on a store of 4 MiB: three real stores built and compacted, a real
 * child JVM reading each, and, where this process may make a memory cgroup (root), the memory-limit
 * rows in one. Checks that the stores were compressed (fewer bytes, compressed segments), that
 * every ratio of the targets is computed and every field is there, and that the memory-limit rows
 * either ran or say why not; never whether a target is met, nor any speed.
 */
class CompressedStoreTest {
  @TempDir Path dir;

  @Test
  void measuresDiskAndReadsOfEachStoreAndWritesTheTargets() throws Exception {
    Path json = dir.resolve("store.json");
    Path markdown = dir.resolve("store.md");
    Path runs = Files.createDirectories(dir.resolve("runs"));
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "at-rest",
                "--parts",
                "compressed-store",
                "--store-mb",
                "4",
                "--memory-limit-mb",
                "192",
                "--store-gets",
                "500",
                "--store-rounds",
                "1",
                "--dir",
                runs.toString(),
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);
    JsonObject root = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
    assertFalse(root.has("results"), "only the part asked for ran");
    JsonObject part = root.getAsJsonObject("compressed_store");
    assertTrue(part.get("documents").getAsInt() > 1000, part.toString());

    Map<String, JsonObject> disk = new HashMap<>();
    for (JsonElement e : part.getAsJsonArray("disk")) {
      disk.put(e.getAsJsonObject().get("codec").getAsString(), e.getAsJsonObject());
    }
    assertEquals(Set.of("none", "lz4", "zstd"), disk.keySet());
    assertEquals(0, disk.get("none").get("compressed_segments").getAsInt());
    for (String codec : List.of("lz4", "zstd")) {
      JsonObject d = disk.get(codec);
      assertTrue(d.get("compressed_segments").getAsInt() > 0, codec + " compressed: " + d);
      double ratio = d.get("ratio_vs_none").getAsDouble();
      assertTrue(ratio > 0 && ratio < 1, codec + " takes fewer bytes than none: " + d);
    }

    boolean limited = part.getAsJsonObject("memory_limit").get("available").getAsBoolean();
    Set<String> rows = new HashSet<>();
    for (JsonElement e : part.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      assertTrue(row.get("ops_per_s").getAsDouble() > 0, row.toString());
      assertTrue(row.get("cpu_ns_per_op").getAsDouble() > 0, row.toString());
      assertTrue(row.get("throughput_ratio_vs_none").getAsDouble() > 0, row.toString());
      assertTrue(row.has("major_faults_per_op"), row.toString());
      rows.add(
          row.get("setting").getAsString()
              + "/"
              + row.get("op").getAsString()
              + "/"
              + row.get("codec").getAsString());
    }
    Set<String> expected = new HashSet<>();
    for (String setting : limited ? List.of("in-memory", "memory-limit") : List.of("in-memory")) {
      for (String op : List.of("get", "getAll")) {
        for (String codec : List.of("none", "lz4", "zstd")) {
          expected.add(setting + "/" + op + "/" + codec);
        }
      }
    }
    assertEquals(expected, rows);
    if (!limited) {
      assertNotNull(
          part.getAsJsonObject("memory_limit").get("unavailable").getAsString(),
          "a skipped memory-limit row says why");
    }

    Set<String> targets = new HashSet<>();
    for (JsonElement e : part.getAsJsonArray("targets")) {
      JsonObject t = e.getAsJsonObject();
      String id = t.get("target").getAsString();
      targets.add(id + "/" + t.get("codec").getAsString());
      boolean measured = limited || !id.equals("get_memory_limit");
      assertEquals(measured, !t.get("measured").isJsonNull(), t.toString());
      assertEquals(measured, !t.get("met").isJsonNull(), t.toString());
    }
    assertEquals(
        Set.of(
            "disk/lz4",
            "disk/zstd",
            "get_in_memory/lz4",
            "get_in_memory/zstd",
            "get_memory_limit/lz4",
            "get_memory_limit/zstd"),
        targets);
    String md = Files.readString(markdown);
    assertTrue(md.contains("| disk use, compressed / none | ≤ 0.4x |"), md);
    assertTrue(md.contains("| random GET, data 2x the memory limit, compressed / none | ≥ 1.5x |"));
    try (var left = Files.list(runs)) {
      assertEquals(0, left.count(), "the run directory is removed");
    }
  }
}
