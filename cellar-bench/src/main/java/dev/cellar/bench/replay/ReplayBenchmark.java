package dev.cellar.bench.replay;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.RecoveryReport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Recording rate against replay rate for the same log: loads N keys, closes, deletes the checkpoint
 * so that the next open must replay (and CRC-check) every record, and reopens. The brief asks that
 * replay be faster than recording was.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Time to record N puts against time to replay them on open (no checkpoint).")
public final class ReplayBenchmark implements Callable<Integer> {
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

  @Override
  public Integer call() throws Exception {
    Path store = dir != null ? dir : Files.createTempDirectory("cellar-replay");
    try {
      CellarOptions options = CellarOptions.defaults().fsync(Fsync.NO).expectedKeys(keys);
      byte[] value = new byte[valueSize];
      long start = System.nanoTime();
      try (Cellar db = Cellar.open(store, options)) {
        for (int n = 0; n < keys; n++) {
          value[n % valueSize] = (byte) n;
          db.put(("user:" + n).getBytes(StandardCharsets.UTF_8), value);
        }
        db.sync();
      }
      double recordSeconds = (System.nanoTime() - start) / 1e9;
      try (Stream<Path> files = Files.list(store)) {
        for (Path p :
            files.filter(p -> p.getFileName().toString().startsWith("checkpoint-")).toList()) {
          Files.delete(p);
        }
      }
      start = System.nanoTime();
      RecoveryReport report;
      try (Cellar db = Cellar.open(store, options)) {
        report = db.recoveryReport();
        if (db.get(("user:" + (keys - 1)).getBytes(StandardCharsets.UTF_8)) == null) {
          throw new IllegalStateException("replay lost user:" + (keys - 1));
        }
      }
      double replaySeconds = (System.nanoTime() - start) / 1e9;
      System.out.println("| phase | records | seconds | records/s |");
      System.out.println("|---|---:|---:|---:|");
      System.out.printf(
          Locale.ROOT,
          "| record (put, fsync no, incl. close) | %,d | %.2f | %,.0f |%n",
          keys,
          recordSeconds,
          keys / recordSeconds);
      System.out.printf(
          Locale.ROOT,
          "| replay (open without checkpoint, every CRC checked) | %,d | %.2f | %,.0f |%n",
          report.replayedRecords(),
          replaySeconds,
          report.replayedRecords() / replaySeconds);
      System.out.printf(
          Locale.ROOT, "replay is %.2fx the recording rate%n", recordSeconds / replaySeconds);
      ChangeStreamScan.measureAndPrint(store, options);
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
}
