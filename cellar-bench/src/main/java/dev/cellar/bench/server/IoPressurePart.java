package dev.cellar.bench.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The memory-pressure part of {@code cellar bench io}: whether dropping the segments sealed since
 * the last checkpoint from the page cache, when memory is tight (the engine's {@code
 * CheckpointedPages}), helps reads of a hot set while writes push through a memory limit. Same run,
 * {@code --io buffered} with the hint ({@code -Dcellar.io.checkpointDrop=true}) and without it (the
 * default).
 *
 * <p>Per round and mode: the page cache dropped, a server on the benchmark's store in a fresh
 * memory cgroup ({@code --fsync no}, on a copy of the store, background compaction off); the hot
 * set (the first tenth of the keys, about a tenth of the data) read once, untimed, to bring it into
 * the page cache; then, at the same time, SETs of new keys (log that fills the limit, and nothing
 * read: see {@link #newKeyspace}), a {@code SAVE} (a checkpoint) every second, and, 3 seconds into
 * the writes, the timed GETs of the hot set. The measure is the GETs' throughput and p99; the SETs'
 * throughput is reported beside them.
 */
final class IoPressurePart extends IoPart {
  /** Buffered with the hint, which is off by default. */
  static final String BUFFERED_CHECKPOINT_DROP = "buffered-checkpoint-drop";

  /** The engine's switch for that hint (true turns it on), for this measurement only. */
  static final String CHECKPOINT_DROP_PROPERTY = "cellar.io.checkpointDrop=true";

  static final List<String> MODES = List.of(BUFFERED_CHECKPOINT_DROP, "buffered");

  /** How long the writes run before the timed GETs start. */
  private static final long WRITES_AHEAD_MILLIS = 3000;

  /** One measured run. */
  record PressureRun(
      String mode, int round, double getOpsPerSecond, double getP99Ms, double setOpsPerSecond) {}

  IoPressurePart(
      IoBenchmark bench,
      Tools tools,
      ChildProcesses children,
      Path runDir,
      Placement placement,
      MemoryCgroup.Support cgroup,
      String name,
      Path data,
      PrintStream log) {
    super(bench, tools, children, runDir, placement, cgroup, name, data, log);
  }

  List<PressureRun> run(int rounds, int keys, int valueSize, long getRequests, long setRequests)
      throws IOException, InterruptedException {
    List<PressureRun> runs = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      List<String> order = new ArrayList<>(MODES);
      Collections.rotate(order, round - 1);
      for (String mode : order) {
        runs.add(measure(mode, round, keys, valueSize, getRequests, setRequests));
        log.printf(Locale.ROOT, "bench io: pressure round %d %s%n", round, runs.getLast());
      }
    }
    return runs;
  }

  private PressureRun measure(
      String mode, int round, int keys, int valueSize, long getRequests, long setRequests)
      throws IOException, InterruptedException {
    int hot = Math.max(1, keys / 10);
    // A copy per run: the SETs grow the log, and every run must start from the same store.
    Path copy = runDir.resolve("pressure-data");
    ScratchDirectory.delete(copy);
    IoScanPart.copyTree(data, copy);
    IoBenchmark.dropPageCache();
    Path writerDir = Files.createDirectories(runDir.resolve("pressure-writer"));
    ExecutorService background = Executors.newFixedThreadPool(2);
    AtomicBoolean writing = new AtomicBoolean(true);
    try (MemoryCgroup group = bench.group(cgroup, name);
        ServerProcess server =
            bench.start(
                tools,
                children,
                runDir,
                placement,
                group,
                copy,
                mode,
                "no",
                "--auto-aof-rewrite-percentage",
                "0")) {
      RedisBenchmarkRunner reader = new RedisBenchmarkRunner(tools, children, runDir);
      reader.run(server.port(), placement, new Workload("get", 16, hot, 8, hot, valueSize));
      Future<RedisBenchmarkCsv.Row> writes =
          background.submit(
              () -> {
                try {
                  return new RedisBenchmarkRunner(tools, children, writerDir)
                      .run(
                          server.port(),
                          placement,
                          new Workload("set", 16, setRequests, 8, newKeyspace(keys), valueSize));
                } finally {
                  writing.set(false);
                }
              });
      Future<Integer> saves =
          background.submit(
              () -> {
                int n = 0;
                try (RespClient client = RespClient.connect(server.port(), Duration.ofMinutes(2))) {
                  while (writing.get()) {
                    Thread.sleep(1000);
                    client.call("SAVE");
                    n++;
                  }
                }
                return n;
              });
      Thread.sleep(WRITES_AHEAD_MILLIS); // the writes fill the limit first
      RedisBenchmarkCsv.Row gets =
          reader.run(
              server.port(), placement, new Workload("get", 16, getRequests, 8, hot, valueSize));
      RedisBenchmarkCsv.Row sets = writes.get();
      saves.get();
      return new PressureRun(mode, round, gets.opsPerSecond(), gets.p99Ms(), sets.opsPerSecond());
    } catch (ExecutionException e) {
      throw new IOException("the pressure run's writes failed: " + e.getCause(), e.getCause());
    } finally {
      writing.set(false);
      background.shutdownNow();
      ScratchDirectory.delete(copy);
    }
  }

  /**
   * The SETs' key space: a hundred times the store's keys, so that nearly every SET writes a new
   * key. A new key's slot holds no candidate to compare against, so the SETs read nothing: all the
   * pressure on the page cache is what they write (an overwrite of a random existing key would read
   * its old record first, a miss on cold data for every SET, which is pressure of another kind).
   */
  static int newKeyspace(int keys) {
    return (int) Math.min(Integer.MAX_VALUE, 100L * keys);
  }

  /** The JSON of the part: the median run of each mode, every run, and the ratio. */
  static Map<String, Object> report(List<PressureRun> runs) {
    Map<String, Object> out = new LinkedHashMap<>();
    List<Object> rows = new ArrayList<>();
    Map<String, PressureRun> median = new LinkedHashMap<>();
    for (String mode : MODES) {
      List<PressureRun> of =
          runs.stream()
              .filter(r -> r.mode().equals(mode))
              .sorted(java.util.Comparator.comparingDouble(PressureRun::getOpsPerSecond))
              .toList();
      if (!of.isEmpty()) {
        median.put(mode, of.get(of.size() / 2));
      }
    }
    for (PressureRun r : runs) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("mode", r.mode());
      row.put("round", r.round());
      row.put("get_ops_per_second", Math.round(r.getOpsPerSecond()));
      row.put("get_p99_ms", r.getP99Ms());
      row.put("set_ops_per_second", Math.round(r.setOpsPerSecond()));
      rows.add(row);
    }
    out.put("runs", rows);
    PressureRun with = median.get(BUFFERED_CHECKPOINT_DROP);
    PressureRun without = median.get("buffered");
    if (with != null && without != null) {
      out.put(
          "hot_get_throughput_with_over_without",
          IoBenchmark.round3(with.getOpsPerSecond() / without.getOpsPerSecond()));
      out.put(
          "hot_get_p99_with_over_without",
          IoBenchmark.round3(with.getP99Ms() / without.getP99Ms()));
      out.put(
          "set_throughput_with_over_without",
          IoBenchmark.round3(with.setOpsPerSecond() / without.setOpsPerSecond()));
    }
    return out;
  }

  static String markdown(List<PressureRun> runs) {
    if (runs.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder();
    md.append(
        "\nMemory pressure: hot GETs (a tenth of the keys) while SETs of new keys write through"
            + " the limit, a checkpoint a second; buffered with the checkpoint drop hint and"
            + " without it:\n\n| round | mode | hot GET ops/s | hot GET p99 ms | SET ops/s |\n"
            + "|---:|---|---:|---:|---:|\n");
    for (PressureRun r : runs) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %,.0f | %.2f | %,.0f |%n",
              r.round(),
              r.mode(),
              r.getOpsPerSecond(),
              r.getP99Ms(),
              r.setOpsPerSecond()));
    }
    Map<String, Object> ratio = report(runs);
    if (ratio.containsKey("hot_get_throughput_with_over_without")) {
      md.append(
          String.format(
              Locale.ROOT,
              "%nWith the hint / without (medians): hot GETs %.2fx, their p99 %.2fx, SETs %.2fx.%n",
              ((Number) ratio.get("hot_get_throughput_with_over_without")).doubleValue(),
              ((Number) ratio.get("hot_get_p99_with_over_without")).doubleValue(),
              ((Number) ratio.get("set_throughput_with_over_without")).doubleValue()));
    }
    return md.toString();
  }
}
