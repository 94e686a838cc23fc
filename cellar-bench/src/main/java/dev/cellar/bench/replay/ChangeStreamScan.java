package dev.cellar.bench.replay;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The raw scan rate of the change stream: a full pass over the log from sequence 1, every record's
 * CRC checked, each change's key and value looked at (their sizes summed, as a consumer that copies
 * them would at least do). Reported per pass (the first maps the log's pages into the process; the
 * page cache holds them already, since the store was just written) as log bytes and records per
 * second. Log bytes are the store's {@code logBytes}: the load writes no overwrites, so there is no
 * compaction and every byte is a log segment's.
 */
final class ChangeStreamScan {
  private static final int PASSES = 5;

  /**
   * The scanning thread's CPU time is reported next to the wall clock: on a shared machine the
   * second measures the neighbours as much as the scan.
   */
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ChangeStreamScan() {}

  /** Opens the store in {@code store}, scans it {@link #PASSES} times and prints a table. */
  static void measureAndPrint(Path store, CellarOptions options) {
    try (Cellar db = Cellar.open(store, options)) {
      long logBytes = db.stats().logBytes();
      System.out.println();
      System.out.println(
          "| change stream scan (from seq 1, every CRC checked) | records | seconds | MB/s of log"
              + " | records/s | CPU seconds | MB/s of log per CPU second |");
      System.out.println("|---|---:|---:|---:|---:|---:|---:|");
      for (int pass = 1; pass <= PASSES; pass++) {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long[] counted = scan(db);
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        System.out.printf(
            Locale.ROOT,
            "| pass %d (%,d bytes of keys and values) | %,d | %.3f | %,.0f | %,.0f | %.3f | %,.0f |%n",
            pass,
            counted[1],
            counted[0],
            seconds,
            logBytes / seconds / 1e6,
            counted[0] / seconds,
            cpuSeconds,
            logBytes / cpuSeconds / 1e6);
      }
    }
  }

  /** Streams every change; returns {changes, key and value bytes}. */
  private static long[] scan(Cellar db) {
    long changes = 0;
    long bytes = 0;
    long last = db.lastSeq();
    try (ChangeStream stream = db.changes(1)) {
      while (stream.position() <= last) {
        ChangeBatch batch = stream.poll();
        while (batch.next()) {
          changes++;
          bytes += batch.key().byteSize() + batch.value().byteSize();
        }
      }
    }
    return new long[] {changes, bytes};
  }
}
