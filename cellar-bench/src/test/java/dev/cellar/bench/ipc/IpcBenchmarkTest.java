package dev.cellar.bench.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.cellar.bench.BenchCommand;
import dev.cellar.bench.crash.ServerLaunch;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cellar bench ipc} end to end with tiny numbers: a real Cellar server (the launcher's java
 * command line from this test's class path, behind a stand-in {@code cellar} script, since the real
 * launcher would build the project inside the build), the client over shared memory and TCP, and
 * redis-server with Jedis; then the JSON's shape, checked as other tooling reads it.
 */
class IpcBenchmarkTest {
  private static final List<String> REQUIRED =
      List.of("ops_per_s", "rtt_p50_ns", "rtt_p99_ns", "rtt_p999_ns", "server_cpu_ns_per_op");

  @TempDir Path dir;

  @Test
  void measuresBothTransportsAndRedisAndWritesTheContractsJson() throws Exception {
    assumeTrue(
        onPath("redis-server")
            && onPath("redis-cli")
            && onPath("redis-benchmark")
            && onPath("taskset"),
        "needs redis-server, redis-tools and taskset");
    Path launcher = standInLauncher();
    Path json = dir.resolve("ipc.json");
    Path markdown = dir.resolve("ipc.md");
    int status =
        new CommandLine(new BenchCommand())
            .execute(
                "ipc",
                "--cellar",
                launcher.toString(),
                "--dir",
                dir.toString(),
                "--keys",
                "2000",
                "--seconds",
                "0.5",
                "--warmup-seconds",
                "0.1",
                "--batches",
                "1,10",
                "--no-pin",
                "--json",
                json.toString(),
                "--markdown",
                markdown.toString());
    assertEquals(0, status);

    String text = Files.readString(json);
    assertTrue(!text.contains(dir.toString()), "the record names a path of this machine: " + text);
    JsonObject root = JsonParser.parseString(text).getAsJsonObject();
    JsonObject machine = root.getAsJsonObject("machine");
    assertTrue(machine.get("cores").getAsInt() > 0, machine.toString());
    assertTrue(machine.has("load_average_start") && machine.has("load_average_end"));
    String connections = machine.getAsJsonObject("connections").toString();
    assertTrue(connections.contains("\"shm\":\"shm:<run>/"), connections);
    assertTrue(connections.contains("\"tcp\":\"tcp://"), connections);

    checkRows(root.getAsJsonArray("results"), Set.of("shm", "tcp"), true);
    checkRows(root.getAsJsonArray("redis_results"), Set.of("tcp"), false);
    for (JsonElement row : root.getAsJsonArray("redis_results")) {
      assertEquals("redis", row.getAsJsonObject().get("server").getAsString());
    }
    assertEquals(5, root.getAsJsonArray("targets").size());

    String report = Files.readString(markdown);
    assertTrue(report.contains("| mode | ops/s shm | ops/s tcp | shm/tcp |"), report);
    assertTrue(report.contains("| GET | zero-copy |"), report);
    assertTrue(report.contains("ops/s redis+jedis"), report);
    assertTrue(report.contains("not measured"), report);
    try (var left = Files.list(dir)) {
      assertEquals(
          Set.of(json, markdown, launcher),
          Set.copyOf(left.toList()),
          "the run directory is removed");
    }
  }

  /**
   * Every (transport, batch, op, mode) has each required metric once, and every value is positive:
   * GET in both modes when {@code zeroCopy} (Cellar's client), everything else copied.
   */
  private static void checkRows(JsonArray rows, Set<String> transports, boolean zeroCopy) {
    Map<String, Set<String>> metricsByCell = new HashMap<>();
    for (JsonElement element : rows) {
      JsonObject row = element.getAsJsonObject();
      String cell =
          row.get("transport").getAsString()
              + "/"
              + row.get("batch").getAsInt()
              + "/"
              + row.get("op").getAsString()
              + "/"
              + row.get("mode").getAsString();
      double value = row.get("value").getAsDouble();
      assertTrue(value > 0, "not positive: " + row);
      assertTrue(
          metricsByCell
              .computeIfAbsent(cell, c -> new HashSet<>())
              .add(row.get("metric").getAsString()),
          "twice: " + row);
    }
    Set<String> expectedCells = new HashSet<>();
    for (String transport : transports) {
      for (int batch : new int[] {1, 10}) {
        expectedCells.add(transport + "/" + batch + "/get/copy");
        expectedCells.add(transport + "/" + batch + "/set/copy");
        if (zeroCopy) {
          expectedCells.add(transport + "/" + batch + "/get/zero-copy");
        }
      }
    }
    assertEquals(expectedCells, metricsByCell.keySet());
    metricsByCell.forEach(
        (cell, metrics) -> assertTrue(metrics.containsAll(REQUIRED), cell + ": " + metrics));
  }

  /**
   * A {@code cellar} that runs the server as the real launcher does, from this test's class path;
   * like the launcher, it execs, so the pid the benchmark reads is the server's JVM.
   */
  private Path standInLauncher() throws Exception {
    ServerLaunch launch =
        ServerLaunch.java(
            Path.of(System.getProperty("java.home"), "bin", "java"),
            System.getProperty("java.class.path"));
    List<String> prefix = launch.prefix().subList(0, launch.prefix().size() - 1); // no "server"
    StringBuilder script = new StringBuilder("#!/bin/sh\nexec");
    for (String word : prefix) {
      script.append(" '").append(word.replace("'", "'\\''")).append('\'');
    }
    script.append(" \"$@\"\n");
    Path path = dir.resolve("cellar");
    Files.writeString(path, script);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
    return path;
  }

  private static boolean onPath(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d.isEmpty() ? "." : d, program))) {
        return true;
      }
    }
    return false;
  }
}
