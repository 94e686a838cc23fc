package dev.cellar.bench.atrest;

import dev.cellar.bench.workload.JsonDocuments;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The compression part of {@code bench at-rest}: the evidence for how Cellar should compress stored
 * data, per record with a dictionary trained on the store's own documents, or per block read
 * through a cache. Every candidate stores the same documents; for each, what it takes on disk, the
 * CPU it costs to compress a document (compaction's or sealing's work, off the request path), and
 * the CPU a random read costs to decompress what it needs: one record, or one whole block on a
 * cache miss.
 *
 * <p>Measured as the codec part measures ({@link CodecCpuRun}): CPU time of this one thread from
 * {@link ThreadMXBean}, each step warmed up, then rounds that run every step once, starting from a
 * different step each round; the median round. Random reads decompress every frame once in a seeded
 * random order, so that a record or block is seldom in the CPU's caches, as in a store larger than
 * them. Also measured: AES-256-GCM per record and per 64 KiB block, in both directions, which give
 * GCM's cost per operation and per byte for the model ({@link CompressionDesignReport}).
 */
final class CompressionDesignRun {
  static final long SEED = CodecCpuRun.SEED;
  static final int WARMUP_PASSES = 1;
  static final long WARMUP_CPU_NANOS = 300_000_000;
  static final int[] DICTIONARY_BYTES = {16 << 10, 64 << 10};
  static final int[] BLOCK_BYTES = {4 << 10, 16 << 10, 64 << 10};
  static final int GCM_BLOCK_BYTES = 64 << 10;

  /**
   * A step's timed passes, and how many operations (documents, frames, GCM calls) one pass does.
   */
  record Timing(String what, int operations, List<CodecCpuRun.Sample> samples) {
    /** CPU nanoseconds per operation of the median pass. */
    double cpuNanosPerOperation() {
      return BackupRun.median(samples.stream().map(s -> (double) s.cpuNanos()).toList())
          / operations;
    }
  }

  /** A candidate, its compression per document and its decompression per frame read. */
  record Row(CompressionCandidate candidate, Timing compress, Timing decompress) {}

  /**
   * AES-256-GCM in both directions, one operation per document and one per 64 KiB block of them.
   */
  record Gcm(
      Timing encryptRecord,
      Timing decryptRecord,
      Timing encryptBlock,
      Timing decryptBlock,
      double recordBytes,
      double blockBytes) {}

  /** A run's inputs and rows. */
  record Result(
      int documents,
      long rawBytes,
      int rounds,
      List<ZstdDictionary> dictionaries,
      List<Row> rows,
      Gcm gcm) {}

  private final int documents;
  private final int rounds;
  private final PrintStream log;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  CompressionDesignRun(int documents, int rounds, PrintStream log) {
    if (documents < 1 || rounds < 1) {
      throw new IllegalArgumentException(
          "--compression-docs "
              + documents
              + " and --compression-rounds "
              + rounds
              + " must be positive");
    }
    if (!threads.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException(
          "this JVM cannot read a thread's CPU time, which the compression rows are measured in");
    }
    threads.setThreadCpuTimeEnabled(true);
    this.documents = documents;
    this.rounds = rounds;
    this.log = log;
  }

  Result run() throws Exception {
    List<byte[]> docs = JsonDocuments.generate(SEED, documents);
    long raw = docs.stream().mapToLong(d -> d.length).sum();
    List<ZstdDictionary> dictionaries = new ArrayList<>();
    for (int size : DICTIONARY_BYTES) {
      ZstdDictionary d = ZstdDictionary.train(docs, size);
      dictionaries.add(d);
      log.printf(
          Locale.ROOT,
          "at-rest compression: a %d-byte dictionary from %d documents in %.0f ms CPU%n",
          d.bytes().length,
          d.sampleDocuments(),
          d.cpuNanos() / 1e6);
    }
    List<CompressionCandidate> candidates = candidates(docs, dictionaries);
    List<String> names = new ArrayList<>();
    List<Integer> operations = new ArrayList<>();
    List<CodecStep.Pass> passes = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(SEED);
    for (CompressionCandidate c : candidates) {
      names.add(c.label() + " compress");
      operations.add(c.documents());
      passes.add(c.compressPass());
      names.add(c.label() + " decompress");
      operations.add(c.frames());
      passes.add(c.decompressPass(permutation(c.frames(), random)));
    }
    List<byte[]> blocks = new ArrayList<>(DocumentBlocks.of(docs, GCM_BLOCK_BYTES).blocks());
    GcmSteps gcm = new GcmSteps(SEED);
    int n = docs.size();
    List<CodecStep> gcmSteps =
        List.of(
            gcm.encrypt(docs, n, "record"),
            gcm.decrypt(docs, n, "record"),
            gcm.encrypt(blocks, n, "block"),
            gcm.decrypt(blocks, n, "block"));
    for (CodecStep s : gcmSteps) {
      names.add("aes-256-gcm " + s.op() + " per " + s.unit());
      operations.add(s.unit().equals("record") ? docs.size() : blocks.size());
      passes.add(s.pass());
    }
    List<Timing> timings = measure(names, operations, passes);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      rows.add(new Row(candidates.get(i), timings.get(2 * i), timings.get(2 * i + 1)));
    }
    int g = 2 * candidates.size();
    Gcm gcmResult =
        new Gcm(
            timings.get(g),
            timings.get(g + 1),
            timings.get(g + 2),
            timings.get(g + 3),
            (double) raw / docs.size(),
            blocks.stream().mapToLong(b -> b.length).average().orElse(0));
    return new Result(documents, raw, rounds, dictionaries, rows, gcmResult);
  }

  /** The candidates, in the order the report shows them. */
  static List<CompressionCandidate> candidates(
      List<byte[]> docs, List<ZstdDictionary> dictionaries) {
    List<CompressionCandidate> out = new ArrayList<>();
    for (int level : new int[] {1, 3}) {
      out.add(CompressionCandidate.perRecord(new ZstdRecordCodec(level, null), null, docs));
    }
    for (ZstdDictionary d : dictionaries) {
      out.add(CompressionCandidate.perRecord(new ZstdRecordCodec(3, d.bytes()), d, docs));
    }
    ZstdDictionary largest = dictionaries.getLast();
    out.add(CompressionCandidate.perRecord(new ZstdRecordCodec(1, largest.bytes()), largest, docs));
    out.add(
        CompressionCandidate.perRecord(
            new ZstdFfmDictionaryCodec(3, largest.bytes()), largest, docs));
    out.add(CompressionCandidate.perRecord(Compression.aircompressorLz4(), null, docs));
    for (ZstdDictionary d : dictionaries) {
      out.add(CompressionCandidate.perRecord(new Lz4FfmDictionaryCodec(d.bytes()), d, docs));
    }
    for (int size : BLOCK_BYTES) {
      out.add(CompressionCandidate.perBlock(Compression.aircompressorZstd(), size, docs));
    }
    for (int size : BLOCK_BYTES) {
      out.add(CompressionCandidate.perBlock(Compression.aircompressorLz4(), size, docs));
    }
    return out;
  }

  private List<Timing> measure(
      List<String> names, List<Integer> operations, List<CodecStep.Pass> passes) throws Exception {
    List<List<CodecCpuRun.Sample>> samples = new ArrayList<>();
    for (CodecStep.Pass pass : passes) {
      warmUp(pass);
      samples.add(new ArrayList<>());
    }
    for (int r = 1; r <= rounds; r++) {
      for (int k = 0; k < passes.size(); k++) {
        int i = (k + r - 1) % passes.size();
        samples.get(i).add(timed(r, passes.get(i)));
      }
      log.printf(Locale.ROOT, "at-rest compression: round %d of %d done%n", r, rounds);
    }
    List<Timing> out = new ArrayList<>();
    for (int i = 0; i < passes.size(); i++) {
      out.add(new Timing(names.get(i), operations.get(i), List.copyOf(samples.get(i))));
    }
    return out;
  }

  private void warmUp(CodecStep.Pass pass) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    for (int p = 0;
        p < WARMUP_PASSES || threads.getCurrentThreadCpuTime() - cpu0 < WARMUP_CPU_NANOS;
        p++) {
      pass.run();
    }
  }

  private CodecCpuRun.Sample timed(int round, CodecStep.Pass pass) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    long sink = pass.run();
    long wall = System.nanoTime() - wall0;
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    if (sink == Long.MIN_VALUE) { // never: keeps the pass's result alive
      log.println(sink);
    }
    return new CodecCpuRun.Sample(round, cpu, wall);
  }

  /** 0 to {@code n - 1} in a seeded random order (Fisher-Yates). */
  static int[] permutation(int n, SplittableRandom random) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
