package dev.cellar.bench.server;

import dev.cellar.bench.soak.InfoFields;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The compaction scan part of {@code cellar bench io}: how fast, and at what CPU, one compaction
 * pass reads a cold store's garbage, in the same run, with {@code --io buffered} (victims read
 * through their mappings with {@code MADV_SEQUENTIAL} for the pass), buffered without that hint
 * (the victims keep the {@code MADV_RANDOM} of sealed segments, so each page fault reads a page),
 * and {@code --io direct} (victims read with {@code O_DIRECT} in 1 MiB requests).
 *
 * <p>The store is the benchmark's own, every key written a second time, so that the first versions
 * are all garbage. Each run copies it, drops the page cache, starts a server on the copy in a fresh
 * memory cgroup (background compaction off), sends {@code BGREWRITEAOF} and waits for the pass to
 * end: its wall time, the log bytes it reclaimed ({@code cellar_compacted_bytes}) and the server's
 * user and kernel CPU.
 */
final class IoScanPart extends IoPart {
  /** Buffered without {@code MADV_SEQUENTIAL} on compaction victims. */
  static final String BUFFERED_NO_SCAN_HINT = "buffered-no-madv-sequential";

  /** The engine's switch for that hint (true turns it off), for this measurement only. */
  static final String NO_SCAN_HINT_PROPERTY = "cellar.io.noScanAdvice=true";

  static final List<String> MODES = List.of("buffered", "direct", BUFFERED_NO_SCAN_HINT);

  /** One compaction pass. */
  record ScanRun(
      String mode,
      int round,
      double seconds,
      long reclaimedBytes,
      double userSeconds,
      double kernelSeconds,
      long majorFaults) {
    double mbPerSecond() {
      return seconds <= 0 ? 0 : reclaimedBytes / 1e6 / seconds;
    }
  }

  IoScanPart(
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

  List<ScanRun> run(int rounds) throws IOException, InterruptedException {
    List<ScanRun> runs = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      List<String> order = new ArrayList<>(MODES);
      Collections.rotate(order, round - 1);
      for (String mode : order) {
        runs.add(pass(mode, round));
        log.printf(Locale.ROOT, "bench io: scan round %d %s%n", round, runs.getLast());
      }
    }
    return runs;
  }

  private ScanRun pass(String mode, int round) throws IOException, InterruptedException {
    Path copy = runDir.resolve("scan-data");
    ScratchDirectory.delete(copy);
    copyTree(data, copy);
    IoBenchmark.dropPageCache();
    try {
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
                  "0");
          RespClient client = RespClient.connect(server.port(), Duration.ofMinutes(10))) {
        long before = compactedBytes(client);
        long[] ticks = IoBenchmark.userSystemTicks(server.pid());
        long faults = majorFaults(server.pid());
        long started = System.nanoTime();
        client.call("BGREWRITEAOF");
        while (inProgress(client)) {
          Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long[] after = IoBenchmark.userSystemTicks(server.pid());
        double perTick = 1.0 / ProcessAccounting.TICKS_PER_SECOND;
        return new ScanRun(
            mode,
            round,
            seconds,
            compactedBytes(client) - before,
            (after[0] - ticks[0]) * perTick,
            (after[1] - ticks[1]) * perTick,
            majorFaults(server.pid()) - faults);
      }
    } finally {
      ScratchDirectory.delete(copy);
    }
  }

  /**
   * The process's major page faults ({@code /proc/PID/stat} field 12): each one a read of the
   * device, so their count says how a mapping's scan reached the disk, whatever the disk's speed.
   */
  static long majorFaults(long pid) throws IOException {
    return Long.parseLong(IoBenchmark.statFields(pid)[9]);
  }

  private static boolean inProgress(RespClient client) throws IOException {
    return persistence(client).number("aof_rewrite_in_progress", 0) == 1;
  }

  private static long compactedBytes(RespClient client) throws IOException {
    long bytes = persistence(client).number("cellar_compacted_bytes", -1);
    if (bytes < 0) {
      throw new IllegalStateException("INFO has no cellar_compacted_bytes");
    }
    return bytes;
  }

  private static InfoFields persistence(RespClient client) throws IOException {
    return new InfoFields(client.call("INFO", "persistence"));
  }

  static void copyTree(Path from, Path to) throws IOException, InterruptedException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        if (Files.isRegularFile(f)) {
          Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    new ProcessBuilder("sync").inheritIO().start().waitFor();
  }

  /** The median pass of each mode, and the ratios against buffered with its hint. */
  static Map<String, Object> report(List<ScanRun> runs) {
    Map<String, Object> root = new LinkedHashMap<>();
    List<Object> rows = new ArrayList<>();
    Map<String, ScanRun> medians = new LinkedHashMap<>();
    for (String mode : MODES) {
      List<ScanRun> of =
          runs.stream()
              .filter(r -> r.mode().equals(mode))
              .sorted(Comparator.comparingDouble(ScanRun::mbPerSecond))
              .toList();
      if (of.isEmpty()) {
        continue;
      }
      ScanRun m = of.get(of.size() / 2);
      medians.put(mode, m);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("mode", mode);
      row.put("seconds", IoBenchmark.round3(m.seconds()));
      row.put("reclaimed_bytes", m.reclaimedBytes());
      row.put("mb_per_second", IoBenchmark.round3(m.mbPerSecond()));
      row.put("user_cpu_seconds", IoBenchmark.round3(m.userSeconds()));
      row.put("kernel_cpu_seconds", IoBenchmark.round3(m.kernelSeconds()));
      row.put("major_faults", m.majorFaults());
      rows.add(row);
    }
    root.put("rows", rows);
    ScanRun buffered = medians.get("buffered");
    ScanRun direct = medians.get("direct");
    ScanRun noHint = medians.get(BUFFERED_NO_SCAN_HINT);
    if (buffered != null && noHint != null && noHint.mbPerSecond() > 0) {
      root.put(
          "madvise_sequential_throughput_gain",
          IoBenchmark.round3(buffered.mbPerSecond() / noHint.mbPerSecond()));
    }
    if (buffered != null
        && direct != null
        && buffered.mbPerSecond() > 0
        && buffered.kernelSeconds() > 0
        && direct.reclaimedBytes() > 0) {
      root.put(
          "direct_over_buffered_throughput",
          IoBenchmark.round3(direct.mbPerSecond() / buffered.mbPerSecond()));
      root.put(
          "direct_over_buffered_kernel_cpu_per_byte",
          IoBenchmark.round3(
              (direct.kernelSeconds() / Math.max(1, direct.reclaimedBytes()))
                  / (buffered.kernelSeconds() / Math.max(1, buffered.reclaimedBytes()))));
    }
    return root;
  }

  @SuppressWarnings("unchecked")
  static String markdown(List<ScanRun> runs) {
    if (runs.isEmpty()) {
      return "";
    }
    Map<String, Object> report = report(runs);
    StringBuilder md = new StringBuilder();
    md.append(
        "\nOne compaction pass over a cold store's garbage (every key written twice), the median"
            + " pass:\n\n| mode | seconds | reclaimed MB | MB/s | user CPU s | kernel CPU s | major faults |\n"
            + "|---|---:|---:|---:|---:|---:|---:|\n");
    for (Object o : (List<Object>) report.get("rows")) {
      Map<String, Object> r = (Map<String, Object>) o;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f | %.0f | %.1f | %.2f | %.2f | %,d |%n",
              r.get("mode"),
              ((Number) r.get("seconds")).doubleValue(),
              ((Number) r.get("reclaimed_bytes")).doubleValue() / 1e6,
              ((Number) r.get("mb_per_second")).doubleValue(),
              ((Number) r.get("user_cpu_seconds")).doubleValue(),
              ((Number) r.get("kernel_cpu_seconds")).doubleValue(),
              ((Number) r.get("major_faults")).longValue()));
    }
    if (report.containsKey("madvise_sequential_throughput_gain")) {
      md.append(
          String.format(
              Locale.ROOT,
              "%nMADV_SEQUENTIAL on victims (buffered with it / without): %.2fx the MB/s.%n",
              ((Number) report.get("madvise_sequential_throughput_gain")).doubleValue()));
    }
    if (report.containsKey("direct_over_buffered_throughput")) {
      md.append(
          String.format(
              Locale.ROOT,
              "O_DIRECT scans (direct / buffered): %.2fx the MB/s at %.2fx the kernel CPU a byte.%n",
              ((Number) report.get("direct_over_buffered_throughput")).doubleValue(),
              ((Number) report.get("direct_over_buffered_kernel_cpu_per_byte")).doubleValue()));
    }
    md.append("\nAll passes:\n\n| round | mode | seconds | reclaimed MB | MB/s | major faults |\n");
    md.append("|---:|---|---:|---:|---:|---:|\n");
    for (ScanRun r : runs) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %.2f | %.0f | %.1f | %,d |%n",
              r.round(),
              r.mode(),
              r.seconds(),
              r.reclaimedBytes() / 1e6,
              r.mbPerSecond(),
              r.majorFaults()));
    }
    return md.toString();
  }
}
