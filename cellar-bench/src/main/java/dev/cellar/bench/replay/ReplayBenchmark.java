package dev.cellar.bench.replay;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.RecoveryReport;
import dev.cellar.bench.PageCache;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Recording rate against replay rate for the same log: loads N keys, then makes the next open
 * replay (and CRC-check) every record, and reopens.
 *
 * <p>Two ways to leave the log without a usable checkpoint. By default the loading store is closed
 * and its checkpoints deleted. With {@code --crash} the load runs in a child JVM that is killed
 * with SIGKILL once its writes are synced, as a {@code kill -9} of a server would leave it: the
 * last segment unsealed, no checkpoint written on close (periodic checkpoints are off in the
 * child). The reopen then runs in this JVM, whose replay code is as cold as a restarted server's.
 *
 * <p>Besides the rates it reports what a restart waits for: the recovery time the store measures
 * itself (directory scan, mapping and replay), the replayed bytes per second, and the time from the
 * call to {@code open} to the answer of the first GET.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Time to record N puts against time to replay them on open (no checkpoint).")
public final class ReplayBenchmark implements Callable<Integer> {
  /** What the child prints once its writes are synced: the parent kills it then. */
  private static final String LOADED = "loaded";

  /**
   * The opening thread's CPU time is reported beside the wall-clock time: on a shared machine it is
   * what the replay itself cost (stalls on memory included), whatever else ran.
   */
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** All threads': replay may apply records on a second thread (JIT and GC are in it too). */
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);

  @Option(
      names = "--keys",
      defaultValue = "15000000",
      description = "keys to load (default: ${DEFAULT-VALUE})")
  int keys;

  @Option(
      names = "--value-size",
      defaultValue = "60",
      description = "bytes per value (default: ${DEFAULT-VALUE})")
  int valueSize;

  @Option(
      names = "--dir",
      description = "where the store is made (default: a temporary directory, deleted after)")
  Path dir;

  @Option(
      names = "--crash",
      description = "load in a child JVM and kill it with SIGKILL instead of closing the store")
  boolean crash;

  @Option(
      names = "--reuse",
      description =
          "with --dir: if the directory already holds a store, skip loading and only replay it")
  boolean reuse;

  @Option(
      names = "--rounds",
      defaultValue = "1",
      description = "replays of the same log, each a fresh open (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(
      names = "--io",
      defaultValue = "buffered",
      description =
          "the store's io mode, buffered or direct (direct: replay reads the log with O_DIRECT;"
              + " default: ${DEFAULT-VALUE})")
  String ioName;

  private IoMode io() {
    return IoMode.parse(ioName);
  }

  @Option(
      names = "--cold",
      description =
          "drop the store's segment files from the page cache before each replay, and report how"
              + " much of them it holds after the open")
  boolean cold;

  @Option(names = "--load-only", hidden = true, description = "the child of --crash")
  boolean loadOnly;

  @Override
  public Integer call() throws Exception {
    if (loadOnly) {
      loadAndWait();
      return 0;
    }
    Path store = dir != null ? dir : Files.createTempDirectory("cellar-replay");
    try {
      double recordSeconds = Double.NaN;
      if (!(reuse && hasSegments(store))) {
        long start = System.nanoTime();
        if (crash) {
          loadInChildAndKill(store);
        } else {
          try (Cellar db = Cellar.open(store, options())) {
            load(db);
          }
        }
        recordSeconds = (System.nanoTime() - start) / 1e9;
      }
      System.out.println("| phase | records | seconds | records/s |");
      System.out.println("|---|---:|---:|---:|");
      if (!Double.isNaN(recordSeconds)) {
        System.out.printf(
            Locale.ROOT,
            "| record (put, fsync no, incl. %s) | %,d | %.2f | %,.0f |%n",
            crash ? "sync, then kill -9" : "close",
            keys,
            recordSeconds,
            keys / recordSeconds);
      }
      List<String> details = new ArrayList<>();
      double replaySeconds = 0;
      for (int round = 0; round < rounds; round++) {
        deleteCheckpoints(store);
        if (cold && !PageCache.dropSegments(store)) {
          throw new IllegalStateException("cannot drop the segments from the page cache (dd)");
        }
        long start = System.nanoTime();
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long processCpuStart = PROCESS.getProcessCpuTime();
        RecoveryReport report;
        double firstGetSeconds;
        double openCpuSeconds;
        double openProcessCpuSeconds;
        try (Cellar db = Cellar.open(store, options())) {
          openCpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
          openProcessCpuSeconds = (PROCESS.getProcessCpuTime() - processCpuStart) / 1e9;
          report = db.recoveryReport();
          byte[] found = db.get(("user:" + (keys - 1)).getBytes(StandardCharsets.UTF_8));
          firstGetSeconds = (System.nanoTime() - start) / 1e9;
          if (found == null) {
            throw new IllegalStateException("replay lost user:" + (keys - 1));
          }
        }
        replaySeconds = (System.nanoTime() - start) / 1e9;
        long cached = cold ? PageCache.cachedSegmentBytes(store) : -1;
        double recoverySeconds = report.elapsedNanos() / 1e9;
        System.out.printf(
            Locale.ROOT,
            "| replay (open without checkpoint, every CRC checked) | %,d | %.2f | %,.0f |%n",
            report.replayedRecords(),
            replaySeconds,
            report.replayedRecords() / replaySeconds);
        details.add(
            String.format(
                Locale.ROOT,
                "recovery %.2f s (open: %.2f s CPU of its thread, %.2f s of the process): %,.1f MB"
                    + " replayed at %,.0f MB/s, %,.0f records/s; first GET answered %.2f s after"
                    + " open began%s",
                recoverySeconds,
                openCpuSeconds,
                openProcessCpuSeconds,
                report.replayedBytes() / 1e6,
                report.replayedBytes() / 1e6 / recoverySeconds,
                report.replayedRecords() / recoverySeconds,
                firstGetSeconds,
                cached < 0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        "; the page cache held %.1f MB of the segments after (io %s)",
                        cached / 1e6,
                        io().label())));
      }
      details.forEach(System.out::println);
      if (!Double.isNaN(recordSeconds)) {
        System.out.printf(
            Locale.ROOT, "replay is %.2fx the recording rate%n", recordSeconds / replaySeconds);
      }
      ChangeStreamScan.measureAndPrint(store, options());
      return 0;
    } finally {
      if (dir == null) {
        try (Stream<Path> walk = Files.walk(store)) {
          for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
    }
  }

  private CellarOptions options() {
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.NO).expectedKeys(keys).io(io());
    // A crashed server's last checkpoint is as old as the interval allows; the child writes none.
    return crash ? options.checkpointInterval(Duration.ZERO) : options;
  }

  private void load(Cellar db) {
    byte[] value = new byte[valueSize];
    for (int n = 0; n < keys; n++) {
      value[n % valueSize] = (byte) n;
      db.put(("user:" + n).getBytes(StandardCharsets.UTF_8), value);
    }
    db.sync();
  }

  /** The child of {@code --crash}: loads, syncs, says so and waits to be killed. */
  private void loadAndWait() throws InterruptedException {
    Cellar db = Cellar.open(dir, options());
    load(db);
    System.out.println(LOADED);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // never closed: the parent kills this JVM
  }

  private void loadInChildAndKill(Path store) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.cellar.bench.BenchCommand");
    command.addAll(
        List.of(
            "replay",
            "--load-only",
            "--crash",
            "--keys",
            Integer.toString(keys),
            "--value-size",
            Integer.toString(valueSize),
            "--dir",
            store.toString(),
            "--io",
            ioName));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.equals(LOADED)) {
        System.err.println("child: " + line);
      }
      if (line == null) {
        throw new IllegalStateException(
            "the loading child exited with status " + child.waitFor() + " before it loaded");
      }
    } finally {
      child.destroyForcibly(); // SIGKILL on Linux
      child.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static boolean hasSegments(Path store) throws IOException {
    try (Stream<Path> files = Files.list(store)) {
      return files.anyMatch(p -> p.getFileName().toString().startsWith("seg-"));
    }
  }

  private static void deleteCheckpoints(Path store) throws IOException {
    try (Stream<Path> files = Files.list(store)) {
      for (Path p :
          files.filter(p -> p.getFileName().toString().startsWith("checkpoint-")).toList()) {
        Files.delete(p);
      }
    }
  }
}
