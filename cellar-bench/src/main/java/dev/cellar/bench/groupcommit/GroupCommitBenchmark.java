package dev.cellar.bench.groupcommit;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Fsync;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Puts per second under {@code fsync always} with 1 writer thread and with many, in one run: the
 * measure of group commit. With one writer every put waits for its own fsync; with W writers one
 * fsync should acknowledge up to W puts, so throughput should scale with W until the log's
 * bandwidth, not fsync latency, is the limit.
 */
@Command(
    name = "group-commit",
    mixinStandardHelpOptions = true,
    description = "Puts/s under fsync=always with 1 and with N writer threads (group commit).")
public final class GroupCommitBenchmark implements Callable<Integer> {
  @Option(
      names = "--threads",
      split = ",",
      defaultValue = "1,16",
      description = "writer thread counts to run, in order (default: ${DEFAULT-VALUE})")
  List<Integer> threads;

  @Option(
      names = "--seconds",
      defaultValue = "10",
      description = "measured seconds per thread count (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(
      names = "--value-size",
      defaultValue = "60",
      description = "bytes per value (default: ${DEFAULT-VALUE})")
  int valueSize;

  @Option(
      names = "--keys",
      defaultValue = "1000000",
      description = "key space written at random (default: ${DEFAULT-VALUE})")
  int keys;

  @Option(
      names = "--zero-fill-log",
      description =
          "reserve the log by writing zeros (CellarOptions.zeroFillLog) instead of fallocate")
  boolean zeroFillLog;

  @Option(
      names = "--dir",
      description = "where the store is made (default: a temporary directory, deleted after)")
  Path dir;

  /** One measured configuration. */
  record Result(int threads, long puts, double seconds, long fsyncs, long fsyncNanos) {
    double putsPerSecond() {
      return puts / seconds;
    }

    double putsPerFsync() {
      return fsyncs == 0 ? 0 : (double) puts / fsyncs;
    }

    /** Mean time inside one fsync call. */
    double fsyncMicros() {
      return fsyncs == 0 ? 0 : fsyncNanos / 1e3 / fsyncs;
    }

    /** Mean time from one fsync's start to the next's: the fsync plus everything between. */
    double cycleMicros() {
      return fsyncs == 0 ? 0 : seconds * 1e6 / fsyncs;
    }
  }

  @Override
  public Integer call() throws Exception {
    List<Result> results = new ArrayList<>();
    for (int t : threads) {
      Path store =
          dir != null
              ? dir.resolve("group-commit-" + t)
              : Files.createTempDirectory("cellar-group-commit");
      try {
        results.add(run(store, t));
      } finally {
        deleteRecursively(store);
      }
      Result r = results.getLast();
      System.err.printf(
          Locale.ROOT,
          "%d threads: %,.0f puts/s, %.1f puts per fsync%n",
          t,
          r.putsPerSecond(),
          r.putsPerFsync());
    }
    print(results);
    return 0;
  }

  private Result run(Path store, int threadCount) throws Exception {
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.ALWAYS)
            .backgroundCompaction(false)
            .zeroFillLog(zeroFillLog);
    try (Cellar db = Cellar.open(store, options)) {
      byte[] value = new byte[valueSize];
      LongAdder puts = new LongAdder();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      long[] end = new long[1];
      for (int i = 0; i < threadCount; i++) {
        writers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        start.await();
                      } catch (InterruptedException e) {
                        return;
                      }
                      ThreadLocalRandom random = ThreadLocalRandom.current();
                      while (System.nanoTime() < end[0]) {
                        db.put(
                            ("user:" + random.nextInt(keys)).getBytes(StandardCharsets.UTF_8),
                            value);
                        puts.increment();
                      }
                    }));
      }
      CellarStats before = db.stats();
      long begin = System.nanoTime();
      end[0] = begin + seconds * 1_000_000_000L;
      start.countDown();
      for (Thread w : writers) {
        w.join();
      }
      double elapsed = (System.nanoTime() - begin) / 1e9;
      CellarStats after = db.stats();
      return new Result(
          threadCount,
          puts.sum(),
          elapsed,
          after.fsyncs() - before.fsyncs(),
          after.fsyncNanos() - before.fsyncNanos());
    }
  }

  private static void print(List<Result> results) {
    Result base = results.getFirst();
    System.out.println(
        "| writer threads | puts/s | puts per fsync | fsync, mean | fsync cycle, mean | vs "
            + base.threads()
            + " thread(s) |");
    System.out.println("|---:|---:|---:|---:|---:|---:|");
    for (Result r : results) {
      System.out.printf(
          Locale.ROOT,
          "| %d | %,.0f | %.1f | %.0f µs | %.0f µs | %.1fx |%n",
          r.threads(),
          r.putsPerSecond(),
          r.putsPerFsync(),
          r.fsyncMicros(),
          r.cycleMicros(),
          r.putsPerSecond() / base.putsPerSecond());
    }
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
