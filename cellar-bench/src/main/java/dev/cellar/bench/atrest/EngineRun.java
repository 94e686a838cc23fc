package dev.cellar.bench.atrest;

import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.bench.workload.JsonDocuments;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The engine part of {@code bench at-rest}: what encryption at rest costs inside the engine, a
 * plain and an encrypted store side by side in one JVM, on the same documents and the same keys.
 *
 * <p><b>Interleaved.</b> Both stores are open at once, and every step of a round (load, random
 * GETs, batched GETs, compaction, reopen) runs on one store and then on the other before the next
 * step begins, the first store alternating from step to step and from round to round. A slow spell
 * of this shared host then falls on both sides of a row, or on each side as often, rather than on
 * one store's whole round. Round 0 warms up (the JIT, the page cache, the cipher's intrinsics) and
 * is not reported; each row is the median of the rounds after it.
 *
 * <p><b>CPU.</b> The measuring thread does the work of every row except recovery, so the thread's
 * CPU time ({@link ThreadMXBean#getCurrentThreadCpuTime()}) is the row's cost, untouched by other
 * processes, the JIT and the collector. Replay may apply records on a second thread, so recovery is
 * measured in the process's CPU time ({@link ProcessCpuClock}), which includes the JIT and the
 * collector too; each round reopens each store {@link #REOPENS} times for it.
 *
 * <p><b>The stores.</b> {@code fsync no}, no background compaction and no periodic checkpoint, so
 * that no agent works while a step is timed; the files stay in the page cache, so the rows are the
 * engine's CPU, not the disk's. Segments are an eighth of the loaded data (1 to 64 MiB), so that
 * any {@code --engine-docs} gives a load of several sealed segments for compaction to choose from,
 * and it takes every one at least {@link #GARBAGE_RATIO} dead: each load segment is half dead after
 * the overwrite.
 *
 * <p><b>The yardstick.</b> Each round also times the codec part's AES-GCM per record ({@link
 * GcmSteps}) over the first {@link #GCM_DOCS} documents, so the engine's overhead per operation
 * stands next to the price of the GCM operations it has to do, measured in the same JVM.
 */
final class EngineRun {
  static final long SEED = CodecCpuRun.SEED;
  static final double GARBAGE_RATIO = 0.25;
  static final int GCM_DOCS = 20_000;
  static final int MIN_SEGMENT_BYTES = 1 << 20;

  /**
   * Reopens a round times in each store, summed into one sample: a plain store replays 100,000
   * records in about a tenth of a second, short enough for one collection or compilation to show.
   */
  static final int REOPENS = 3;

  /** Documents compared byte for byte after the load and after compaction, in each store. */
  static final int VERIFIED = 64;

  /** The two stores. */
  enum Kind {
    PLAIN,
    ENCRYPTED;

    String id() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One timed step on one store. */
  record Sample(int round, long ops, long wallNanos, long threadCpuNanos, long processCpuNanos) {
    long cpuNanos(EngineRow row) {
      return row.processCpu ? processCpuNanos : threadCpuNanos;
    }

    /** Both steps as one: the recovery row sums its reopens. */
    Sample plus(Sample o) {
      return new Sample(
          round,
          ops + o.ops,
          wallNanos + o.wallNanos,
          threadCpuNanos + o.threadCpuNanos,
          processCpuNanos + o.processCpuNanos);
    }
  }

  /** One timed pass of the AES-GCM yardstick, per record. */
  record GcmSample(int round, double encryptNanos, double decryptNanos) {}

  /** A run's inputs and samples (round 0, the warm-up, left out). */
  record Result(
      int documents,
      long rawBytes,
      int segmentBytes,
      int rounds,
      Map<EngineRow, Map<Kind, List<Sample>>> samples,
      Map<Kind, List<EngineStore.Compaction>> compactions,
      List<GcmSample> gcm,
      int gcmDocuments) {}

  private final int documents;
  private final int rounds;
  private final Path runDir;
  private final PrintStream log;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  EngineRun(int documents, int rounds, Path runDir, PrintStream log) {
    if (documents < 2 || rounds < 1) {
      throw new IllegalArgumentException(
          "--engine-docs "
              + documents
              + " must be at least 2 and --engine-rounds "
              + rounds
              + " positive");
    }
    if (!threads.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException(
          "this JVM cannot read a thread's CPU time, which the engine rows are measured in");
    }
    threads.setThreadCpuTimeEnabled(true);
    this.documents = documents;
    this.rounds = rounds;
    this.runDir = runDir;
    this.log = log;
  }

  /**
   * Runs the rounds. The stores of the last round stay in the run directory ({@code plain}, {@code
   * encrypted}), with the key in {@code encryption.key}, for {@code --keep-data}.
   */
  Result run() throws Exception {
    List<byte[]> docs = JsonDocuments.generate(SEED, documents);
    long raw = docs.stream().mapToLong(d -> d.length).sum();
    byte[][] keys = new byte[documents][];
    for (int n = 0; n < documents; n++) {
      keys[n] = EngineStore.key(n);
    }
    int segmentBytes = segmentBytes(raw);
    Map<Kind, CellarOptions> options = options(segmentBytes);
    log.printf(
        Locale.ROOT,
        "at-rest engine: %d documents, %,d bytes, segments of %,d bytes; warm-up, then %d rounds%n",
        documents,
        raw,
        segmentBytes,
        rounds);
    GcmYardstick gcm = new GcmYardstick(docs.subList(0, Math.min(GCM_DOCS, documents)));
    Map<EngineRow, Map<Kind, List<Sample>>> samples = new EnumMap<>(EngineRow.class);
    for (EngineRow row : EngineRow.values()) {
      samples.put(row, perKind());
    }
    Map<Kind, List<EngineStore.Compaction>> compactions = perKind();
    List<GcmSample> gcmSamples = new ArrayList<>();
    for (int r = 0; r <= rounds; r++) {
      Round round = round(r, docs, keys, options);
      GcmSample g = gcm.pass(r);
      log.printf(Locale.ROOT, "at-rest engine: %s%n", round.line(g));
      if (r > 0) {
        round.samples.forEach(
            (row, byKind) -> byKind.forEach((k, s) -> samples.get(row).get(k).add(s)));
        round.compactions.forEach((k, c) -> compactions.get(k).add(c));
        gcmSamples.add(g);
      }
    }
    return new Result(
        documents, raw, segmentBytes, rounds, samples, compactions, gcmSamples, gcm.documents());
  }

  private static <T> Map<Kind, List<T>> perKind() {
    Map<Kind, List<T>> m = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      m.put(k, new ArrayList<>());
    }
    return m;
  }

  /** One round's samples and what each compaction pass did. */
  private record Round(
      int round,
      Map<EngineRow, Map<Kind, Sample>> samples,
      Map<Kind, EngineStore.Compaction> compactions) {
    /** CPU ns per operation of every row, plain / encrypted, for the log. */
    String line(GcmSample gcm) {
      StringBuilder line = new StringBuilder(round == 0 ? "warm-up:" : "round " + round + ":");
      samples.forEach(
          (row, byKind) -> {
            Sample p = byKind.get(Kind.PLAIN);
            Sample e = byKind.get(Kind.ENCRYPTED);
            line.append(
                String.format(
                    Locale.ROOT,
                    " %s %.0f/%.0f ns,",
                    row.id,
                    (double) p.cpuNanos(row) / p.ops(),
                    (double) e.cpuNanos(row) / e.ops()));
          });
      return line.append(
              String.format(
                  Locale.ROOT,
                  " aes-gcm %.0f/%.0f ns (plain/encrypted CPU per op; encrypt/decrypt)",
                  gcm.encryptNanos(),
                  gcm.decryptNanos()))
          .toString();
    }
  }

  /** An eighth of the loaded data, in whole 64 KiB, from 1 to 64 MiB. */
  static int segmentBytes(long rawBytes) {
    long eighth = (rawBytes / 8) & ~0xFFFFL;
    return (int) Math.clamp(eighth, MIN_SEGMENT_BYTES, CellarOptions.DEFAULT_SEGMENT_BYTES);
  }

  private Map<Kind, CellarOptions> options(int segmentBytes) throws IOException {
    CellarOptions plain =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .backgroundCompaction(false)
            .checkpointInterval(Duration.ZERO)
            .compactionGarbageRatio(GARBAGE_RATIO)
            .segmentBytes(segmentBytes)
            .maxValueBytes(64 << 10)
            .expectedKeys(documents);
    byte[] key = new byte[EncryptionKeys.KEY_BYTES];
    new SecureRandom().nextBytes(key);
    Files.writeString(
        runDir.resolve("encryption.key"),
        "1 " + HexFormat.of().formatHex(key) + "\n",
        StandardCharsets.US_ASCII);
    return new EnumMap<>(
        Map.of(Kind.PLAIN, plain, Kind.ENCRYPTED, plain.encryptionKeys(EncryptionKeys.of(key))));
  }

  /** One round on fresh stores: every step on both, the first alternating. */
  private Round round(int r, List<byte[]> docs, byte[][] keys, Map<Kind, CellarOptions> options)
      throws Exception {
    Map<Kind, EngineStore> stores = new EnumMap<>(Kind.class);
    Map<EngineRow, Map<Kind, Sample>> out = new EnumMap<>(EngineRow.class);
    Map<Kind, EngineStore.Compaction> compactions = new EnumMap<>(Kind.class);
    SplittableRandom random = new SplittableRandom(SEED + r);
    int[] picks = random.ints(documents, 0, documents).toArray();
    int[][] batches = new int[(documents + EngineStore.GET_BATCH - 1) / EngineStore.GET_BATCH][];
    for (int b = 0; b < batches.length; b++) {
      int size = Math.min(EngineStore.GET_BATCH, documents - b * EngineStore.GET_BATCH);
      batches[b] = random.ints(size, 0, documents).toArray();
    }
    try {
      for (Kind k : Kind.values()) {
        Path dir = runDir.resolve(k.id());
        BackupRun.deleteTree(dir);
        stores.put(k, new EngineStore(dir, options.get(k), docs, keys));
      }
      int step = 0;
      step(out, EngineRow.LOAD, r, step++, stores, EngineStore::load);
      both(r, step, stores, s -> s.verify(VERIFIED));
      step(out, EngineRow.GET, r, step++, stores, s -> s.get(picks));
      step(out, EngineRow.GET_ALL, r, step++, stores, s -> s.getAll(batches));
      both(r, step, stores, EngineStore::overwrite);
      step(out, EngineRow.COMPACTION, r, step++, stores, EngineStore::compact);
      stores.forEach((k, s) -> compactions.put(k, s.lastCompaction()));
      both(r, step, stores, s -> s.verify(VERIFIED));
      for (int i = 0; i < REOPENS; i++) {
        both(r, step, stores, EngineStore::closeForReplay);
        step(out, EngineRow.RECOVERY, r, step++, stores, EngineStore::reopen);
        both(r, step, stores, s -> s.verify(VERIFIED));
      }
      return new Round(r, out, compactions);
    } finally {
      for (EngineStore s : stores.values()) {
        s.close();
      }
    }
  }

  private interface Timed {
    long run(EngineStore store) throws Exception;
  }

  private interface Untimed {
    void run(EngineStore store) throws Exception;
  }

  private void step(
      Map<EngineRow, Map<Kind, Sample>> out,
      EngineRow row,
      int round,
      int step,
      Map<Kind, EngineStore> stores,
      Timed timed)
      throws Exception {
    Map<Kind, Sample> byKind = out.computeIfAbsent(row, r -> new EnumMap<>(Kind.class));
    for (Kind k : order(round, step)) {
      EngineStore store = stores.get(k);
      long cpu0 = threads.getCurrentThreadCpuTime();
      long process0 = ProcessCpuClock.nanos();
      long wall0 = System.nanoTime();
      long ops = timed.run(store);
      long wall = System.nanoTime() - wall0;
      long cpu = threads.getCurrentThreadCpuTime() - cpu0;
      long processCpu = ProcessCpuClock.nanos() - process0;
      byKind.merge(k, new Sample(round, ops, wall, cpu, processCpu), Sample::plus);
    }
  }

  private static void both(int round, int step, Map<Kind, EngineStore> stores, Untimed untimed)
      throws Exception {
    for (Kind k : order(round, step)) {
      untimed.run(stores.get(k));
    }
  }

  /** Plain first in even steps of even rounds and odd steps of odd rounds. */
  static List<Kind> order(int round, int step) {
    return (round + step) % 2 == 0
        ? List.of(Kind.PLAIN, Kind.ENCRYPTED)
        : List.of(Kind.ENCRYPTED, Kind.PLAIN);
  }
}
