package dev.cellar.bench.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench io}: the server reading a data set twice the size of its memory limit, with
 * {@code --io buffered} (through the page cache) against {@code --io direct} (O_DIRECT through its
 * own read cache), in the same run: random GETs at pipeline 1 and 16, throughput, p99 and the
 * server's user and kernel CPU per request; then a write-heavy run of SETs under {@code always}.
 *
 * <h2>Fairness</h2>
 *
 * One store, loaded once, is served by both modes in turn, each round in the other order. Before
 * every server start the kernel's page cache is dropped, and each server gets a warm-up of GETs
 * before its measured runs, so neither starts with the other's cache. The server runs in a memory
 * cgroup of {@code --memory-limit} ({@link MemoryCgroup}), which counts its page cache: the
 * buffered server's reads then go to the device once the data outgrows the limit, as the direct
 * server's cache misses do. Without root there is no cgroup; the report says so, and the data set
 * is then not larger than any limit. The server is pinned to one core and redis-benchmark to
 * another.
 *
 * <p>The target (issue "data at rest", part 1): direct reaches at least 1.5x buffered's GET
 * throughput, or equal throughput at no more than half its kernel CPU per request. Both figures are
 * reported either way.
 */
@Command(
    name = "io",
    mixinStandardHelpOptions = true,
    description = {
      "Random GETs (pipeline 1 and 16) and SETs under always on a data set twice a memory cgroup's"
          + " limit, with --io buffered against --io direct in one run: throughput, p99, user and"
          + " kernel CPU per request, and the ratios of the target (direct >= 1.5x buffered's GET"
          + " throughput, or equal throughput at <= 0.5x its kernel CPU)."
    })
public final class IoBenchmark implements Callable<Integer> {
  static final double THROUGHPUT_TARGET = 1.5;
  static final double KERNEL_CPU_TARGET = 0.5;

  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcher;

  @Option(
      names = "--memory-limit-mb",
      defaultValue = "512",
      description = "The server's memory cgroup limit (default ${DEFAULT-VALUE}).")
  int memoryLimitMb;

  @Option(
      names = "--data-factor",
      defaultValue = "2",
      description = "The data set's size over the limit (default ${DEFAULT-VALUE}).")
  double dataFactor;

  @Option(
      names = "--value-size",
      defaultValue = "1024",
      description = "Value bytes (default ${DEFAULT-VALUE}).")
  int valueSize;

  @Option(
      names = "--read-cache-mb",
      defaultValue = "256",
      description = "The direct server's read cache (default ${DEFAULT-VALUE}).")
  int readCacheMb;

  @Option(
      names = "--heap-mb",
      defaultValue = "96",
      description = "Both servers' -Xmx, inside the limit (default ${DEFAULT-VALUE}).")
  int heapMb;

  @Option(
      names = "--requests",
      defaultValue = "400000",
      description = "GETs per measured run (default ${DEFAULT-VALUE}).")
  long requests;

  @Option(
      names = "--no-hint-requests",
      defaultValue = "20000",
      description =
          "GETs per measured run of buffered without MADV_RANDOM, whose every page fault reads the"
              + " device's read-ahead (default ${DEFAULT-VALUE}).")
  long noHintRequests;

  @Option(
      names = "--write-requests",
      defaultValue = "200000",
      description = "SETs of the write-heavy run (default ${DEFAULT-VALUE}).")
  long writeRequests;

  @Option(
      names = "--clients",
      defaultValue = "32",
      description = "redis-benchmark connections (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      description = "Rounds, alternating the order of the modes (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--scan-rounds",
      defaultValue = "3",
      description =
          "Rounds of the compaction scan part: every key written again, then one compaction pass"
              + " over the garbage per mode (0: skip it; default ${DEFAULT-VALUE}).")
  int scanRounds;

  @Option(
      names = "--pressure-rounds",
      defaultValue = "0",
      description =
          "Rounds of the memory-pressure part: hot GETs while SETs write through the limit, with"
              + " and without the checkpoint drop hint (0: skip it; default ${DEFAULT-VALUE}).")
  int pressureRounds;

  @Option(
      names = "--pressure-sets",
      defaultValue = "1000000",
      description = "SETs of each memory-pressure run (default ${DEFAULT-VALUE}).")
  long pressureSets;

  @Option(
      names = "--pressure-gets",
      defaultValue = "600000",
      description = "Hot GETs timed in each memory-pressure run (default ${DEFAULT-VALUE}).")
  long pressureGets;

  @Option(names = "--json", description = "Write the results as JSON into this file.")
  Path json;

  @Option(names = "--markdown", description = "Write the Markdown report into this file.")
  Path markdown;

  /**
   * {@code --io buffered} without the engine's {@code MADV_RANDOM} on sealed segments: the hint's
   * own gain, measured in the same run.
   */
  static final String BUFFERED_NO_HINT = "buffered-no-madvise";

  /** The engine's switch for that hint (true turns it off), for this measurement only. */
  static final String NO_HINT_PROPERTY = "cellar.io.noRandomAdvice=true";

  /**
   * {@code --io direct} with a batch's cache misses read by a pool of threads, or one after
   * another, instead of io_uring: the batch readers measured against each other in the same run.
   */
  static final String DIRECT_POOL = "direct-pool";

  static final String DIRECT_SERIAL = "direct-serial";

  /** The engine's switch for the batch reader, for this measurement only. */
  static final String BATCH_READS_PROPERTY = "cellar.io.batchReads";

  /**
   * {@code --io direct} with the log appended through a shared mapping of its file (the page cache)
   * instead of with O_DIRECT: what O_DIRECT appends change under {@code always}, in the same run.
   * Only the write-heavy run: reads do not differ.
   */
  static final String DIRECT_MAPPED_APPENDS = "direct-mapped-appends";

  /** The engine's switch for O_DIRECT appends (true turns them off), for this measurement only. */
  static final String NO_DIRECT_APPENDS_PROPERTY = "cellar.io.noDirectAppends=true";

  static final List<String> MODES =
      List.of(
          "buffered",
          "direct",
          BUFFERED_NO_HINT,
          DIRECT_POOL,
          DIRECT_SERIAL,
          DIRECT_MAPPED_APPENDS);

  /** Per mode, the segment files' bytes in the page cache after each write-heavy run (fincore). */
  private final Map<String, List<Long>> cachedAfterWrites = new LinkedHashMap<>();

  private long limitBytes() {
    return (long) memoryLimitMb << 20;
  }

  /**
   * Drops the kernel's clean page cache, so that a server starts cold whatever ran before it; false
   * where that is not allowed (not root).
   */
  static boolean dropPageCache() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
      Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static final List<Integer> PIPELINES = List.of(1, 16);

  /** One measured run of one server. */
  record Run(
      String mode,
      String test,
      int pipeline,
      int round,
      double opsPerSecond,
      double p99Ms,
      double userMicrosPerOp,
      double kernelMicrosPerOp) {}

  @Override
  public Integer call() throws Exception {
    PrintStream log = System.err;
    Path script = launcher.executableLauncher(spec);
    Tools tools = Tools.locate(script, false);
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Path runDir = launcher.newRunDirectory("cellar-bench-io-");
    if (!launcher.keepData()) {
      children.deleteAtExit(runDir);
    }
    Placement placement =
        Placement.pinned(0, Runtime.getRuntime().availableProcessors() > 1 ? 1 : 0);
    long limit = (long) memoryLimitMb << 20;
    int keys = (int) Math.min(Integer.MAX_VALUE, (long) (limit * dataFactor) / (valueSize + 64));
    Path data = runDir.resolve("data");
    List<Run> runs = new ArrayList<>();
    String name = "cellar-bench-io-" + ProcessHandle.current().pid();
    MemoryCgroup.Support cgroup = MemoryCgroup.usable(name, limit);
    String cgroupNote =
        cgroup.available()
            ? cgroup.version() + " memory limit of " + memoryLimitMb + " MiB"
            : "none: " + cgroup.unavailable();
    log.printf(
        Locale.ROOT,
        "bench io: %,d keys of %d bytes; memory cgroup %s%n",
        keys,
        valueSize,
        cgroupNote);
    load(tools, children, runDir, placement, data, keys);
    boolean dropped = dropPageCache();
    for (int round = 1; round <= rounds; round++) {
      for (String mode : order(round)) {
        runs.addAll(
            measure(
                tools, children, runDir, placement, cgroup, name, data, mode, keys, round, log));
      }
    }
    List<IoScanPart.ScanRun> scans = List.of();
    if (scanRounds > 0) {
      // Every key written again: the first versions become garbage that a compaction pass scans.
      load(tools, children, runDir, placement, data, keys);
      scans =
          new IoScanPart(this, tools, children, runDir, placement, cgroup, name, data, log)
              .run(scanRounds);
    }
    List<IoPressurePart.PressureRun> pressure = List.of();
    if (pressureRounds > 0) {
      pressure =
          new IoPressurePart(this, tools, children, runDir, placement, cgroup, name, data, log)
              .run(pressureRounds, keys, valueSize, pressureGets, pressureSets);
    }
    Map<String, Object> report = report(tools, runs, keys, cgroupNote, dropped, placement);
    if (!pressure.isEmpty()) {
      report.put("memory_pressure", IoPressurePart.report(pressure));
    }
    if (!scans.isEmpty()) {
      report.put("compaction_scan", IoScanPart.report(scans));
    }
    String md =
        markdown(report, runs) + IoScanPart.markdown(scans) + IoPressurePart.markdown(pressure);
    System.out.print(md);
    if (markdown != null) {
      Files.writeString(markdown, md);
    }
    if (json != null) {
      Files.writeString(json, JsonReport.render(report));
    }
    return 0;
  }

  static List<String> order(int round) {
    List<String> order = new ArrayList<>(MODES);
    java.util.Collections.rotate(order, round - 1);
    return order;
  }

  /**
   * Loads every key into {@code data}, with background compaction off (a second load leaves the
   * first versions as garbage for the scan part, which must find them there).
   */
  private void load(
      Tools tools, ChildProcesses children, Path runDir, Placement placement, Path data, int keys)
      throws IOException, InterruptedException {
    int port = SessionRunner.freePort();
    List<String> command =
        placement.onServerCpu(
            new ArrayList<>(
                List.of(
                    tools.cellarScript().toString(),
                    "server",
                    "--port",
                    Integer.toString(port),
                    "--http-port",
                    "0",
                    "--dir",
                    data.toString(),
                    "--threads",
                    "1",
                    "--auto-aof-rewrite-percentage",
                    "0")));
    try (ServerProcess server =
        ServerProcess.startCellar(
            command, port, runDir.resolve("load.log"), children, Duration.ofMinutes(5))) {
      new KeyLoader(tools, children, runDir).load(server, placement, keys, valueSize);
    }
  }

  private List<Run> measure(
      Tools tools,
      ChildProcesses children,
      Path runDir,
      Placement placement,
      MemoryCgroup.Support cgroup,
      String name,
      Path data,
      String mode,
      int keys,
      int round,
      PrintStream log)
      throws IOException, InterruptedException {
    List<Run> out = new ArrayList<>();
    if (!mode.equals(DIRECT_MAPPED_APPENDS)) {
      dropPageCache();
      out.addAll(
          measureReads(
              tools, children, runDir, placement, cgroup, name, data, mode, keys, round, log));
    }
    dropPageCache();
    try (MemoryCgroup group = group(cgroup, name);
        ServerProcess server =
            start(tools, children, runDir, placement, group, data, mode, "always")) {
      RedisBenchmarkRunner bench = new RedisBenchmarkRunner(tools, children, runDir);
      long n = mode.equals(BUFFERED_NO_HINT) ? noHintRequests / 2 : writeRequests;
      out.add(timed(bench, server, placement, mode, "set", 16, n, keys, round));
      long cached = dev.cellar.bench.PageCache.cachedSegmentBytes(data);
      if (cached >= 0) {
        cachedAfterWrites.computeIfAbsent(mode, m -> new ArrayList<>()).add(cached);
      }
      log.printf(
          Locale.ROOT,
          "bench io: round %d %s %s; segments in the page cache %,d bytes%n",
          round,
          mode,
          last(out),
          cached);
    }
    return out;
  }

  private List<Run> measureReads(
      Tools tools,
      ChildProcesses children,
      Path runDir,
      Placement placement,
      MemoryCgroup.Support cgroup,
      String name,
      Path data,
      String mode,
      int keys,
      int round,
      PrintStream log)
      throws IOException, InterruptedException {
    List<Run> out = new ArrayList<>();
    try (MemoryCgroup group = group(cgroup, name);
        ServerProcess server = start(tools, children, runDir, placement, group, data, mode, "no")) {
      RedisBenchmarkRunner bench = new RedisBenchmarkRunner(tools, children, runDir);
      long n = mode.equals(BUFFERED_NO_HINT) ? noHintRequests : requests;
      bench.run(server.port(), placement, new Workload("get", 16, n / 2, clients, keys, valueSize));
      for (int pipeline : PIPELINES) {
        out.add(timed(bench, server, placement, mode, "get", pipeline, n, keys, round));
        log.printf(Locale.ROOT, "bench io: round %d %s %s%n", round, mode, last(out));
      }
    }
    return out;
  }

  /** A fresh group for one server (none where cgroups cannot be made). */
  MemoryCgroup group(MemoryCgroup.Support cgroup, String name) throws IOException {
    return cgroup.available() ? MemoryCgroup.create(cgroup, name, limitBytes()) : null;
  }

  private static Run last(List<Run> runs) {
    return runs.getLast();
  }

  ServerProcess start(
      Tools tools,
      ChildProcesses children,
      Path runDir,
      Placement placement,
      MemoryCgroup group,
      Path data,
      String mode,
      String fsync,
      String... extra)
      throws IOException, InterruptedException {
    int port = SessionRunner.freePort();
    String io = mode.startsWith("direct") ? "direct" : "buffered";
    String jvm =
        "-Xmx"
            + heapMb
            + "m"
            + switch (mode) {
              case BUFFERED_NO_HINT -> " -D" + NO_HINT_PROPERTY;
              case DIRECT_POOL -> " -D" + BATCH_READS_PROPERTY + "=pool";
              case DIRECT_SERIAL -> " -D" + BATCH_READS_PROPERTY + "=serial";
              case DIRECT_MAPPED_APPENDS -> " -D" + NO_DIRECT_APPENDS_PROPERTY;
              case IoPressurePart.BUFFERED_CHECKPOINT_DROP ->
                  " -D" + IoPressurePart.CHECKPOINT_DROP_PROPERTY;
              case IoScanPart.BUFFERED_NO_SCAN_HINT -> " -D" + IoScanPart.NO_SCAN_HINT_PROPERTY;
              default -> "";
            };
    List<String> server =
        new ArrayList<>(
            List.of(
                "env",
                "CELLAR_JAVA_OPTS=" + jvm,
                tools.cellarScript().toString(),
                "server",
                "--port",
                Integer.toString(port),
                "--http-port",
                "0",
                "--dir",
                data.toString(),
                "--threads",
                "1",
                "--fsync",
                fsync,
                "--io",
                io,
                "--read-cache-size",
                readCacheMb + "mb"));
    server.addAll(List.of(extra));
    return ServerProcess.startCellar(
        placement.onServerCpu(group == null ? server : group.command(server)),
        port,
        runDir.resolve(mode + "-" + fsync + ".log"),
        children,
        Duration.ofMinutes(5));
  }

  private Run timed(
      RedisBenchmarkRunner bench,
      ServerProcess server,
      Placement placement,
      String mode,
      String test,
      int pipeline,
      long n,
      int keys,
      int round)
      throws IOException, InterruptedException {
    long[] before = userSystemTicks(server.pid());
    RedisBenchmarkCsv.Row row =
        bench.run(
            server.port(), placement, new Workload(test, pipeline, n, clients, keys, valueSize));
    long[] after = userSystemTicks(server.pid());
    double microsPerTick = 1e6 / ProcessAccounting.TICKS_PER_SECOND;
    return new Run(
        mode,
        test,
        pipeline,
        round,
        row.opsPerSecond(),
        row.p99Ms(),
        (after[0] - before[0]) * microsPerTick / n,
        (after[1] - before[1]) * microsPerTick / n);
  }

  /** The process's user and kernel CPU ticks, all threads ({@code /proc/PID/stat} 14 and 15). */
  static long[] userSystemTicks(long pid) throws IOException {
    String[] f = statFields(pid);
    return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
  }

  /** The fields of {@code /proc/PID/stat} after the command's name: field N is at N - 3. */
  static String[] statFields(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
  }

  private Map<String, Object> report(
      Tools tools,
      List<Run> runs,
      int keys,
      String cgroupNote,
      boolean dropped,
      Placement placement) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("benchmark", "io");
    root.put("date", Instant.now().toString());
    root.put("machine", Host.describe(tools));
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("keys", keys);
    config.put("value_size", valueSize);
    config.put("data_bytes", (long) keys * valueSize);
    config.put("memory_limit_mb", memoryLimitMb);
    config.put("memory_cgroup", cgroupNote);
    config.put("page_cache_dropped_before_each_server", dropped);
    config.put("read_cache_mb", readCacheMb);
    config.put("heap_mb", heapMb);
    config.put("requests", requests);
    config.put("write_requests", writeRequests);
    config.put("clients", clients);
    config.put("rounds", rounds);
    config.put("placement", placement.describe());
    root.put("config", config);
    List<Object> rows = new ArrayList<>();
    List<Object> ratios = new ArrayList<>();
    List<Object> hints = new ArrayList<>();
    List<Object> batchReads = new ArrayList<>();
    for (String test : List.of("get", "set")) {
      for (int pipeline : test.equals("get") ? PIPELINES : List.of(16)) {
        Map<String, Run> median = new LinkedHashMap<>();
        for (String mode : MODES) {
          Run m = median(runs, mode, test, pipeline);
          if (m == null) {
            continue;
          }
          median.put(mode, m);
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("mode", mode);
          row.put("test", test);
          row.put("pipeline", pipeline);
          row.put("ops_per_second", Math.round(m.opsPerSecond()));
          row.put("p99_ms", m.p99Ms());
          row.put("user_us_per_op", round3(m.userMicrosPerOp()));
          row.put("kernel_us_per_op", round3(m.kernelMicrosPerOp()));
          rows.add(row);
        }
        Run b = median.get("buffered");
        Run d = median.get("direct");
        if (b != null && d != null) {
          Map<String, Object> ratio = new LinkedHashMap<>();
          double throughput = d.opsPerSecond() / b.opsPerSecond();
          double kernel =
              b.kernelMicrosPerOp() == 0
                  ? Double.NaN
                  : d.kernelMicrosPerOp() / b.kernelMicrosPerOp();
          ratio.put("test", test);
          ratio.put("pipeline", pipeline);
          ratio.put("throughput_direct_over_buffered", round3(throughput));
          ratio.put("kernel_cpu_direct_over_buffered", round3(kernel));
          if (test.equals("get")) {
            ratio.put("target_met", targetMet(throughput, kernel));
          }
          ratios.add(ratio);
        }
        Run n = median.get(BUFFERED_NO_HINT);
        if (b != null && n != null) {
          Map<String, Object> hint = new LinkedHashMap<>();
          hint.put("test", test);
          hint.put("pipeline", pipeline);
          hint.put("madvise_random_throughput_gain", round3(b.opsPerSecond() / n.opsPerSecond()));
          hint.put(
              "madvise_random_kernel_cpu",
              round3(
                  n.kernelMicrosPerOp() == 0
                      ? Double.NaN
                      : b.kernelMicrosPerOp() / n.kernelMicrosPerOp()));
          hints.add(hint);
        }
        Run pool = median.get(DIRECT_POOL);
        Run serial = median.get(DIRECT_SERIAL);
        if (d != null && pool != null && serial != null) {
          Map<String, Object> reads = new LinkedHashMap<>();
          reads.put("test", test);
          reads.put("pipeline", pipeline);
          reads.put("throughput_uring_over_pool", round3(d.opsPerSecond() / pool.opsPerSecond()));
          reads.put(
              "throughput_uring_over_serial", round3(d.opsPerSecond() / serial.opsPerSecond()));
          reads.put("cpu_uring_over_pool", round3(cpu(d) / cpu(pool)));
          reads.put("cpu_uring_over_serial", round3(cpu(d) / cpu(serial)));
          batchReads.add(reads);
        }
      }
    }
    root.put("batch_reads", batchReads);
    Run direct = median(runs, "direct", "set", 16);
    Run mapped = median(runs, DIRECT_MAPPED_APPENDS, "set", 16);
    Map<String, Object> appends = new LinkedHashMap<>();
    if (direct != null && mapped != null) {
      appends.put("test", "set");
      appends.put("pipeline", 16);
      appends.put("fsync", "always");
      appends.put(
          "throughput_o_direct_over_mapped", round3(direct.opsPerSecond() / mapped.opsPerSecond()));
      appends.put("cpu_o_direct_over_mapped", round3(cpu(direct) / cpu(mapped)));
      appends.put(
          "kernel_cpu_o_direct_over_mapped",
          round3(direct.kernelMicrosPerOp() / mapped.kernelMicrosPerOp()));
      appends.put("p99_o_direct_over_mapped", round3(direct.p99Ms() / mapped.p99Ms()));
    }
    for (String mode : List.of("buffered", "direct", DIRECT_MAPPED_APPENDS)) {
      List<Long> cached = cachedAfterWrites.get(mode);
      if (cached != null && !cached.isEmpty()) {
        List<Long> sorted = cached.stream().sorted().toList();
        appends.put(
            "segment_page_cache_mib_after_writes_" + mode.replace('-', '_'),
            round3(sorted.get(sorted.size() / 2) / (double) (1 << 20)));
      }
    }
    root.put("direct_appends", appends);
    root.put("madvise_random", hints);
    root.put("rows", rows);
    root.put("ratios", ratios);
    return root;
  }

  /**
   * Direct at 1.5x buffered's throughput, or at least equal at no more than half its kernel CPU.
   */
  static boolean targetMet(double throughput, double kernelCpu) {
    return throughput >= THROUGHPUT_TARGET || (throughput >= 1.0 && kernelCpu <= KERNEL_CPU_TARGET);
  }

  /** User and kernel CPU per request. */
  private static double cpu(Run r) {
    return r.userMicrosPerOp() + r.kernelMicrosPerOp();
  }

  static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The run of median throughput among the rounds of one mode, test and pipeline. */
  static Run median(List<Run> runs, String mode, String test, int pipeline) {
    List<Run> of =
        runs.stream()
            .filter(r -> r.mode().equals(mode) && r.test().equals(test) && r.pipeline() == pipeline)
            .sorted(java.util.Comparator.comparingDouble(Run::opsPerSecond))
            .toList();
    return of.isEmpty() ? null : of.get(of.size() / 2);
  }

  @SuppressWarnings("unchecked")
  private static String markdown(Map<String, Object> report, List<Run> runs) {
    Map<String, Object> config = (Map<String, Object>) report.get("config");
    StringBuilder md = new StringBuilder();
    md.append("### cellar bench io\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "%s keys of %s bytes (%.0f MiB of values); memory cgroup: %s; direct read cache %s MiB,"
                + " heap %s MiB; %s clients; %s rounds, the median shown; %s.%n%n",
            config.get("keys"),
            config.get("value_size"),
            ((Number) config.get("data_bytes")).doubleValue() / (1 << 20),
            config.get("memory_cgroup"),
            config.get("read_cache_mb"),
            config.get("heap_mb"),
            config.get("clients"),
            config.get("rounds"),
            config.get("placement")));
    md.append("| mode | test | pipeline | ops/s | p99 ms | user µs/op | kernel µs/op |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|\n");
    for (Object o : (List<Object>) report.get("rows")) {
      Map<String, Object> r = (Map<String, Object>) o;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %,d | %.2f | %.2f | %.2f |%n",
              r.get("mode"),
              r.get("test"),
              r.get("pipeline"),
              ((Number) r.get("ops_per_second")).longValue(),
              ((Number) r.get("p99_ms")).doubleValue(),
              ((Number) r.get("user_us_per_op")).doubleValue(),
              ((Number) r.get("kernel_us_per_op")).doubleValue()));
    }
    md.append(
        "\n| test | pipeline | throughput direct/buffered | kernel CPU direct/buffered | target met |\n");
    md.append("|---|---:|---:|---:|---|\n");
    for (Object o : (List<Object>) report.get("ratios")) {
      Map<String, Object> r = (Map<String, Object>) o;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.2fx | %.2fx | %s |%n",
              r.get("test"),
              r.get("pipeline"),
              ((Number) r.get("throughput_direct_over_buffered")).doubleValue(),
              ((Number) r.get("kernel_cpu_direct_over_buffered")).doubleValue(),
              r.containsKey("target_met")
                  ? ((Boolean) r.get("target_met") ? "yes" : "**no**")
                  : ""));
    }
    md.append(
        "\nThe MADV_RANDOM hint on sealed segments (buffered against buffered without it):\n\n"
            + "| test | pipeline | throughput with/without | kernel CPU with/without |\n"
            + "|---|---:|---:|---:|\n");
    for (Object o : (List<Object>) report.get("madvise_random")) {
      Map<String, Object> r = (Map<String, Object>) o;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.2fx | %.2fx |%n",
              r.get("test"),
              r.get("pipeline"),
              ((Number) r.get("madvise_random_throughput_gain")).doubleValue(),
              ((Number) r.get("madvise_random_kernel_cpu")).doubleValue()));
    }
    md.append(
        "\nA batch's cache misses in direct mode read by io_uring (direct) against a pool of 16"
            + " threads (direct-pool) and one after another (direct-serial):\n\n"
            + "| test | pipeline | throughput io_uring/pool | io_uring/serial"
            + " | CPU per request io_uring/pool | io_uring/serial |\n"
            + "|---|---:|---:|---:|---:|---:|\n");
    for (Object o : (List<Object>) report.get("batch_reads")) {
      Map<String, Object> r = (Map<String, Object>) o;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.2fx | %.2fx | %.2fx | %.2fx |%n",
              r.get("test"),
              r.get("pipeline"),
              ((Number) r.get("throughput_uring_over_pool")).doubleValue(),
              ((Number) r.get("throughput_uring_over_serial")).doubleValue(),
              ((Number) r.get("cpu_uring_over_pool")).doubleValue(),
              ((Number) r.get("cpu_uring_over_serial")).doubleValue()));
    }
    Map<String, Object> appends = (Map<String, Object>) report.get("direct_appends");
    if (appends.containsKey("throughput_o_direct_over_mapped")) {
      md.append(
          "\nThe log appended with O_DIRECT (direct) against through a shared mapping"
              + " (direct-mapped-appends), SET under `always`:\n\n"
              + "| throughput | CPU per request | kernel CPU per request | p99 |"
              + " page cache after the run, MiB: buffered / direct / direct-mapped-appends |\n"
              + "|---:|---:|---:|---:|---|\n");
      md.append(
          String.format(
              Locale.ROOT,
              "| %.2fx | %.2fx | %.2fx | %.2fx | %s / %s / %s |%n",
              ((Number) appends.get("throughput_o_direct_over_mapped")).doubleValue(),
              ((Number) appends.get("cpu_o_direct_over_mapped")).doubleValue(),
              ((Number) appends.get("kernel_cpu_o_direct_over_mapped")).doubleValue(),
              ((Number) appends.get("p99_o_direct_over_mapped")).doubleValue(),
              appends.getOrDefault("segment_page_cache_mib_after_writes_buffered", "–"),
              appends.getOrDefault("segment_page_cache_mib_after_writes_direct", "–"),
              appends.getOrDefault(
                  "segment_page_cache_mib_after_writes_direct_mapped_appends", "–")));
    }
    md.append(
        "\nAll runs:\n\n| round | mode | test | pipeline | ops/s | p99 ms | kernel µs/op |\n");
    md.append("|---:|---|---|---:|---:|---:|---:|\n");
    for (Run r : runs) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %d | %,.0f | %.2f | %.2f |%n",
              r.round(),
              r.mode(),
              r.test(),
              r.pipeline(),
              r.opsPerSecond(),
              r.p99Ms(),
              r.kernelMicrosPerOp()));
    }
    return md.toString();
  }
}
