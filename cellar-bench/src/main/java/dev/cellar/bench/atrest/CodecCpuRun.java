package dev.cellar.bench.atrest;

import dev.cellar.bench.workload.JsonDocuments;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The codec part of {@code bench at-rest}: the CPU time AES-256-GCM takes per document beside the
 * CPU time zstd and LZ4 take on the same documents, the comparison the encryption target is stated
 * in (encryption at most 10% of zstd compression's CPU).
 *
 * <p>CPU, not wall time: the time the measuring thread spent on a CPU, user and system, from {@link
 * ThreadMXBean#getCurrentThreadCpuTime()}. On a shared two-core host the wall clock also counts the
 * time another process held the core; thread CPU time does not, so it is the steadier measure of
 * what an operation costs. Everything runs on this one thread: the libraries under test start none
 * of their own for these calls.
 *
 * <p>Every step is first run for at least {@link #WARMUP_PASSES} passes over all documents and
 * {@link #WARMUP_CPU_NANOS} of CPU, so that the JIT has compiled the Java side (the cipher and its
 * intrinsics, the FFM and JNI call paths): passes alone would not do for a small {@code --docs} (in
 * the first runs, with 3 passes and no minimum, AES-GCM per record read 2.7 µs over 2,000 documents
 * and 1.7 µs over 20,000). Then each round runs every step once, starting from a different step
 * each round, so that a slow spell of the host falls on different steps; the median round of each
 * step is its row.
 */
final class CodecCpuRun {
  static final int WARMUP_PASSES = 2;
  static final long WARMUP_CPU_NANOS = 500_000_000;
  static final long SEED = 26;

  /** The unit of AES-GCM over zstd-jni's frame of each document: compress, then encrypt. */
  static final String ZSTD_RECORD = "zstd record";

  /** The unit of AES-GCM over zstd-jni's frame of each block. */
  static final String ZSTD_BLOCK = "zstd block";

  /** One timed pass of a step. */
  record Sample(int round, long cpuNanos, long wallNanos) {}

  /** A step and its timed passes. */
  record Measurement(CodecStep step, List<Sample> samples) {
    /** CPU nanoseconds per document of the median pass. */
    double cpuNanosPerDocument() {
      return BackupRun.median(samples.stream().map(s -> (double) s.cpuNanos()).toList())
          / step.documents();
    }

    /** Uncompressed, clear bytes handled per CPU second (the median pass), in MB. */
    double mbPerCpuSecond() {
      double perDocument = (double) step.rawBytes() / step.documents();
      return perDocument / cpuNanosPerDocument() * 1e9 / 1e6;
    }
  }

  /** A run's inputs and rows. */
  record Result(int documents, long rawBytes, int blocks, List<Measurement> rows) {}

  private final int documents;
  private final int rounds;
  private final PrintStream log;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  CodecCpuRun(int documents, int rounds, PrintStream log) {
    if (documents < 1 || rounds < 1) {
      throw new IllegalArgumentException(
          "--docs " + documents + " and --codec-rounds " + rounds + " must be positive");
    }
    if (!threads.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException(
          "this JVM cannot read a thread's CPU time, which the codec rows are measured in");
    }
    threads.setThreadCpuTimeEnabled(true);
    this.documents = documents;
    this.rounds = rounds;
    this.log = log;
  }

  Result run() throws Exception {
    List<byte[]> docs = JsonDocuments.generate(SEED, documents);
    List<byte[]> blocks = CompressionSteps.blocks(docs);
    long raw = docs.stream().mapToLong(d -> d.length).sum();
    log.printf(
        Locale.ROOT,
        "at-rest codecs: %d documents, %,d bytes (%.0f on average), %d blocks of up to %d KiB%n",
        documents,
        raw,
        (double) raw / documents,
        blocks.size(),
        CompressionSteps.BLOCK_BYTES >> 10);
    List<CodecStep> steps = steps(docs, blocks);
    List<List<Sample>> samples = new ArrayList<>();
    for (CodecStep step : steps) {
      warmUp(step);
      samples.add(new ArrayList<>());
    }
    for (int r = 1; r <= rounds; r++) {
      for (int k = 0; k < steps.size(); k++) {
        int i = (k + r - 1) % steps.size();
        samples.get(i).add(timed(r, steps.get(i)));
      }
      log.printf(Locale.ROOT, "at-rest codecs: round %d of %d done%n", r, rounds);
    }
    List<Measurement> rows = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      rows.add(new Measurement(steps.get(i), List.copyOf(samples.get(i))));
    }
    return new Result(documents, raw, blocks.size(), rows);
  }

  /** The table's rows, in the order the report shows them. */
  private static List<CodecStep> steps(List<byte[]> docs, List<byte[]> blocks) throws Exception {
    int n = docs.size();
    GcmSteps gcm = new GcmSteps(SEED);
    Compression airZstd = Compression.aircompressorZstd();
    Compression jniZstd = Compression.zstdJni();
    Compression lz4 = Compression.aircompressorLz4();
    // The engine's own codec (--compression zstd): per record, level 3, against a 16 KiB dictionary
    // trained on a sample of the documents, through FFM over the same libzstd.
    Compression engineZstd =
        new ZstdFfmDictionaryCodec(3, ZstdDictionary.train(docs, 16 << 10).bytes());
    long raw = docs.stream().mapToLong(d -> d.length).sum();
    return List.of(
        gcm.encrypt(docs, n, "record"),
        gcm.decrypt(docs, n, "record"),
        gcm.encrypt(blocks, n, "block"),
        gcm.decrypt(blocks, n, "block"),
        gcm.encrypt(CompressionSteps.frames(jniZstd, docs), n, raw, ZSTD_RECORD),
        gcm.encrypt(CompressionSteps.frames(jniZstd, blocks), n, raw, ZSTD_BLOCK),
        CompressionSteps.compress(airZstd, docs, n, "record"),
        CompressionSteps.decompress(airZstd, docs, n, "record"),
        CompressionSteps.compress(jniZstd, docs, n, "record"),
        CompressionSteps.decompress(jniZstd, docs, n, "record"),
        CompressionSteps.compress(airZstd, blocks, n, "block"),
        CompressionSteps.decompress(airZstd, blocks, n, "block"),
        CompressionSteps.compress(jniZstd, blocks, n, "block"),
        CompressionSteps.decompress(jniZstd, blocks, n, "block"),
        CompressionSteps.compress(lz4, docs, n, "record"),
        CompressionSteps.decompress(lz4, docs, n, "record"),
        CompressionSteps.compress(engineZstd, docs, n, "record"),
        CompressionSteps.decompress(engineZstd, docs, n, "record"));
  }

  private void warmUp(CodecStep step) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    for (int pass = 0;
        pass < WARMUP_PASSES || threads.getCurrentThreadCpuTime() - cpu0 < WARMUP_CPU_NANOS;
        pass++) {
      step.pass().run();
    }
  }

  private Sample timed(int round, CodecStep step) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    long sink = step.pass().run();
    long wall = System.nanoTime() - wall0;
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    if (sink == Long.MIN_VALUE) { // never: keeps the pass's result alive
      log.println(sink);
    }
    return new Sample(round, cpu, wall);
  }
}
