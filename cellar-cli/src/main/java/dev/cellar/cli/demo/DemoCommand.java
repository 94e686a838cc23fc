package dev.cellar.cli.demo;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Fsync;
import dev.cellar.RecoveryReport;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.text.ByteSize;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cellar demo}: the README's first command, showing the embedded store end to end: write
 * many small entries, close, reopen (timing recovery), read them all back and check each one, then
 * show how little of the Java heap all that needs.
 *
 * <p>The store is kept, so a second run reopens it: it says so, rewrites the same keys with the
 * same values (they are a function of the key, see {@link DemoData}) and checks them again. Reads
 * go through the zero-copy {@link Cellar#read} and compare in place, so checking a million values
 * allocates no value copies.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Writes N keys (user:<n>, 60-byte values) to a store, closes it, reopens it, reads every key"
          + " back and checks it, then prints timings, heap use and the store's statistics.",
      "The data is kept: a second run reopens it."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = "data",
      description = "Store directory (default: ./${DEFAULT-VALUE}).")
  Path directory;

  @Option(
      names = "--keys",
      paramLabel = "N",
      defaultValue = "1000000",
      description = "Number of keys (default: 1,000,000).")
  int keys;

  private PrintWriter out;

  @Override
  public Integer call() {
    if (keys < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--keys must be at least 1, not " + keys);
    }
    out = spec.commandLine().getOut();
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.EVERYSEC);
    out.printf(
        Locale.ROOT,
        "Cellar demo: %,d keys (user:<n>, %d-byte values) in %s%n",
        keys,
        DemoData.VALUE_BYTES,
        directory.toAbsolutePath().normalize());
    Cellar db = open(options, "open");
    try {
      long existing = db.size();
      step(
          "store",
          existing == 0
              ? "new (empty)"
              : String.format(
                  Locale.ROOT,
                  "already had %,d keys from an earlier run; rewriting them",
                  existing));
      write(db);
    } finally {
      long start = System.nanoTime();
      db.close();
      step("close", "synced and checkpointed in " + millis(System.nanoTime() - start));
    }
    long wrong;
    try (Cellar reopened = open(options, "reopen")) {
      printRecovery(reopened);
      wrong = readBack(reopened);
      printFootprint(reopened);
    }
    out.printf(
        "Data kept in %s: run again to reopen it, or check it with `./cellar tool verify %s`.%n",
        directory, directory);
    if (wrong > 0) {
      spec.commandLine()
          .getErr()
          .printf(Locale.ROOT, "demo: %,d of %,d values read back wrong or missing%n", wrong, keys);
      return CellarCommand.EXIT_FAILURE;
    }
    return CellarCommand.EXIT_OK;
  }

  private Cellar open(CellarOptions options, String label) {
    long start = System.nanoTime();
    Cellar db = Cellar.open(directory, options);
    step(label, "in " + millis(System.nanoTime() - start));
    return db;
  }

  private void write(Cellar db) {
    byte[] value = new byte[DemoData.VALUE_BYTES];
    long start = System.nanoTime();
    for (int n = 0; n < keys; n++) {
      DemoData.fillValue(n, value);
      db.put(DemoData.key(n), value);
    }
    step("write", rate(keys, "puts", System.nanoTime() - start));
  }

  private long readBack(Cellar db) {
    byte[] expected = new byte[DemoData.VALUE_BYTES];
    MemorySegment expectedSegment = MemorySegment.ofArray(expected);
    long wrong = 0;
    long start = System.nanoTime();
    for (int n = 0; n < keys; n++) {
      DemoData.fillValue(n, expected);
      Boolean same =
          db.read(
              DemoData.key(n),
              v -> v.byteSize() == expected.length && v.mismatch(expectedSegment) == -1);
      if (same == null || !same) {
        wrong++;
      }
    }
    String checked = String.format(Locale.ROOT, ", %,d wrong or missing", wrong);
    step("read", rate(keys, "gets", System.nanoTime() - start) + checked);
    return wrong;
  }

  /** What the open found and did. */
  private void printRecovery(Cellar db) {
    RecoveryReport report = db.recoveryReport();
    if (report != null) {
      step("recovery", report.toString().replace("\n", "\n" + " ".repeat(12)));
    }
  }

  /**
   * Heap after a full collection: what the data costs the Java heap, which is the point of the
   * demo.
   */
  private void printFootprint(Cellar db) {
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    CellarStats s = db.stats();
    step(
        "heap",
        ByteSize.format(heap)
            + " used after GC; off-heap: index "
            + ByteSize.format(s.indexBytes())
            + ", log "
            + ByteSize.format(s.logBytes())
            + " mapped");
    step(
        "stats",
        String.format(
            Locale.ROOT,
            "keys %,d, segments %d, log %s (garbage %s), index %s",
            s.keys(),
            s.segments(),
            ByteSize.format(s.logBytes()),
            ByteSize.format(s.garbageBytes()),
            ByteSize.format(s.indexBytes())));
    step(
        "",
        String.format(
            Locale.ROOT,
            "since reopen: puts %,d, deletes %,d, fsyncs %,d, checkpoints %,d, compactions %,d (%s reclaimed)",
            s.puts(),
            s.deletes(),
            s.fsyncs(),
            s.checkpoints(),
            s.compactions(),
            ByteSize.format(s.compactedBytes())));
  }

  private void step(String label, String text) {
    out.printf(Locale.ROOT, "  %-9s %s%n", label, text);
  }

  private static String rate(long count, String what, long nanos) {
    double seconds = nanos / 1e9;
    return String.format(
        Locale.ROOT,
        "%,d %s in %.2f s (%,.0f/s)",
        count,
        what,
        seconds,
        count / Math.max(seconds, 1e-9));
  }

  private static String millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }
}
