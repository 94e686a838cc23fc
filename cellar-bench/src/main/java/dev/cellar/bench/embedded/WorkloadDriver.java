package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreAdapter;
import dev.cellar.bench.workload.KeySpace;
import dev.cellar.bench.workload.ValueFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the embedded benchmark's phases, in order, against one store in this JVM.
 *
 * <p><b>Phases.</b> Load puts every key once, in increasing {@code n} ({@code user:0}, {@code
 * user:1}, ...), with version 0 of its value. The heap is then measured after settling collections,
 * and a full collection timed. An untimed warm-up of random gets lets the JIT compile the read
 * path; then come random hits, random hits in batches of {@value #BATCH} keys (through the store's
 * multi-get where it has one), random misses ({@code miss:<n>}), random hits from two threads
 * (total throughput), and random overwrites with version 1 values. A persistent store is then
 * closed, its directory measured with {@code du}, and reopened: the reopen time runs from the start
 * of {@code open} until a get of a known key succeeds. A random sample is verified after the
 * reopen. Last, the store is deleted and every key loaded again into a fresh one, in batches of
 * {@value #BATCH} (the store's batch write where it has one), in a warm JVM where the first load
 * ran in a cold one.
 *
 * <p><b>Honesty checks.</b> Every hit is checked for presence and length and every 1024th for exact
 * content (in the batched read too); every miss must be absent; the reopen sample must hold a value
 * the workload wrote. Any failure ends the run with an exception, since a store that answers
 * wrongly has no throughput worth reporting. The first and last bytes of each value are summed into
 * a checksum that is written out with the results, so the JIT cannot drop the reads.
 *
 * <p><b>Randomness.</b> Each phase and thread draws keys from its own {@link SplittableRandom}
 * split, in a fixed order, from the workload seed: every store sees the same key sequence.
 */
final class WorkloadDriver {
  /** Value versions a key may hold: 0 from the load, 1 from an overwrite. */
  private static final int VERSIONS = 2;

  /** Keys per batch in the batched phases. */
  static final int BATCH = 16;

  private static final long CONTENT_CHECK_MASK = 1023;
  private static final int MAX_WARMUP_OPS = 200_000;
  private static final int VERIFY_SAMPLE = 10_000;
  private static final long REOPEN_LIMIT_NANOS = TimeUnit.MINUTES.toNanos(5);

  private final String name;
  private final StoreAdapter store;
  private final Workload workload;
  private final Path directory;
  private final PrintStream log;
  private final KeySpace keys;
  private final ValueFactory values;
  private final SplittableRandom seeds;
  private long checksum;

  WorkloadDriver(
      String name, StoreAdapter store, Workload workload, Path directory, PrintStream log) {
    this.name = name;
    this.store = store;
    this.workload = workload;
    this.directory = directory;
    this.log = log;
    this.keys = new KeySpace(workload.keys());
    this.values = new ValueFactory(workload.valueBytes());
    this.seeds = new SplittableRandom(workload.seed());
  }

  /** Sum of the value bytes read, reported so the reads cannot be optimised away. */
  long checksum() {
    return checksum;
  }

  /** Runs every phase, recording into {@code results} as each one completes. */
  void run(Measurements results) throws IOException, InterruptedException {
    open();
    results.record(Metric.LOAD, timed("load", workload.keys(), this::load));
    results.record(Metric.HEAP_USED, JvmProbe.heapUsedAfterGc());
    results.record(Metric.FULL_GC, JvmProbe.fullGcMillis());
    progress(
        "heap %,d bytes used after load, full GC %.0f ms",
        results.get(Metric.HEAP_USED).orElseThrow().longValue(),
        results.get(Metric.FULL_GC).orElseThrow());
    if (store.persistent()) {
      // The "bytes on disk after load": the directory as the load left it, store open.
      results.record(Metric.DISK, DiskUsage.allocatedBytes(directory));
      progress("disk %,d bytes after load", results.get(Metric.DISK).orElseThrow().longValue());
    } else {
      results.recordNotApplicable(Metric.DISK);
    }
    long ops = workload.ops();
    SplittableRandom warmup = seeds.split();
    expectNoFailures("warm-up", hits(Math.min(ops, MAX_WARMUP_OPS), warmup));
    results.record(Metric.GET_HIT, timed("get hit", ops, () -> hits(ops, seeds.split())));
    results.record(
        Metric.GET_HIT_BATCH16,
        timed("get hit, batches of " + BATCH, ops, () -> batchHits(ops, seeds.split())));
    results.record(Metric.GET_MISS, timed("get miss", ops, () -> misses(ops, seeds.split())));
    results.record(Metric.GET_HIT_2T, timed("get hit, 2 threads", ops, () -> twoThreadHits(ops)));
    results.record(Metric.OVERWRITE, timed("overwrite", ops, () -> overwrites(ops, seeds.split())));
    if (store.persistent()) {
      store.close();
      results.record(Metric.DISK_FINAL, DiskUsage.allocatedBytes(directory));
      results.record(Metric.REOPEN, reopenMillis());
      progress(
          "disk %,d bytes closed at the end, reopen %.1f ms",
          results.get(Metric.DISK_FINAL).orElseThrow().longValue(),
          results.get(Metric.REOPEN).orElseThrow());
      verifySample(seeds.split());
    } else {
      results.recordNotApplicable(Metric.DISK_FINAL);
      results.recordNotApplicable(Metric.REOPEN);
    }
    store.close();
    results.record(Metric.LOAD_BATCH16, batchLoadOnFreshStore());
  }

  /**
   * Loads every key again, in batches, into a fresh store: the store just measured is deleted (its
   * numbers are taken), so the batched load starts from empty as the first load did.
   */
  private double batchLoadOnFreshStore() throws IOException, InterruptedException {
    emptyDirectory(directory);
    open();
    double opsPerSecond = timed("load, batches of " + BATCH, workload.keys(), this::batchLoad);
    store.close();
    return opsPerSecond;
  }

  private static void emptyDirectory(Path directory) throws IOException {
    try (var paths = java.nio.file.Files.walk(directory)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        if (!p.equals(directory)) {
          java.nio.file.Files.delete(p);
        }
      }
    }
  }

  private long batchLoad() {
    byte[][] batchKeys = new byte[BATCH][];
    byte[][] batchValues = new byte[BATCH][];
    long total = keys.keys();
    for (long n = 0; n < total; n += BATCH) {
      int count = (int) Math.min(BATCH, total - n);
      for (int i = 0; i < count; i++) {
        batchKeys[i] = keys.key(n + i);
        batchValues[i] = values.value(n + i, 0);
      }
      store.putAll(batchKeys, batchValues, count);
    }
    store.endBatch();
    return 0;
  }

  /** {@link #hits} in batches of {@link #BATCH} random keys; returns the wrong answers. */
  private long batchHits(long ops, SplittableRandom random) {
    long failures = 0;
    long sum = 0;
    byte[][] batchKeys = new byte[BATCH][];
    long[] numbers = new long[BATCH];
    byte[][] found = new byte[BATCH][];
    for (long i = 0; i < ops; i += BATCH) {
      int count = (int) Math.min(BATCH, ops - i);
      for (int k = 0; k < count; k++) {
        numbers[k] = random.nextLong(keys.keys());
        batchKeys[k] = keys.key(numbers[k]);
      }
      store.getAll(batchKeys, found, count);
      for (int k = 0; k < count; k++) {
        byte[] value = found[k];
        if (value == null || value.length != values.size()) {
          failures++;
          continue;
        }
        sum += value[0] + value[value.length - 1];
        if (((i + k) & CONTENT_CHECK_MASK) == 0
            && !values.matchesAny(value, numbers[k], VERSIONS)) {
          failures++;
        }
      }
    }
    store.endBatch();
    addToChecksum(sum);
    return failures;
  }

  private void open() throws IOException {
    store.open(directory, keys.keys(), keys.averageKeyBytes(), values.size());
  }

  private long load() {
    for (long n = 0; n < keys.keys(); n++) {
      store.put(keys.key(n), values.value(n, 0));
    }
    store.endBatch();
    return 0;
  }

  private long overwrites(long ops, SplittableRandom random) {
    for (long i = 0; i < ops; i++) {
      long n = random.nextLong(keys.keys());
      store.put(keys.key(n), values.value(n, 1));
    }
    store.endBatch();
    return 0;
  }

  /** Random gets of existing keys; returns the number of wrong answers. */
  private long hits(long ops, SplittableRandom random) {
    long failures = 0;
    long sum = 0;
    for (long i = 0; i < ops; i++) {
      long n = random.nextLong(keys.keys());
      byte[] value = store.get(keys.key(n));
      if (value == null || value.length != values.size()) {
        failures++;
        continue;
      }
      sum += value[0] + value[value.length - 1];
      if ((i & CONTENT_CHECK_MASK) == 0 && !values.matchesAny(value, n, VERSIONS)) {
        failures++;
      }
    }
    store.endBatch();
    addToChecksum(sum);
    return failures;
  }

  /** Random gets of absent keys; returns the number of wrong answers. */
  private long misses(long ops, SplittableRandom random) {
    long failures = 0;
    for (long i = 0; i < ops; i++) {
      if (store.get(keys.missKey(random.nextLong(keys.keys()))) != null) {
        failures++;
      }
    }
    store.endBatch();
    return failures;
  }

  /** Random hits from two threads released together; the ops are split between them. */
  private long twoThreadHits(long ops) throws InterruptedException {
    long[] failures = new long[2];
    SplittableRandom[] randoms = {seeds.split(), seeds.split()};
    long[] shares = {ops / 2, ops - ops / 2};
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> error = new AtomicReference<>();
    Thread[] threads = new Thread[2];
    for (int t = 0; t < threads.length; t++) {
      int index = t;
      threads[t] =
          Thread.ofPlatform()
              .name("bench-reader-" + t)
              .start(
                  () -> {
                    try {
                      start.await();
                      failures[index] = hits(shares[index], randoms[index]);
                    } catch (Throwable e) {
                      error.compareAndSet(null, e);
                    }
                  });
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    if (error.get() != null) {
      throw new IllegalStateException("reader thread failed", error.get());
    }
    return failures[0] + failures[1];
  }

  private double reopenMillis() throws IOException {
    byte[] probe = keys.key(keys.keys() - 1);
    long start = System.nanoTime();
    open();
    while (store.get(probe) == null) {
      if (System.nanoTime() - start > REOPEN_LIMIT_NANOS) {
        throw new IllegalStateException(
            name
                + ": key "
                + new String(probe, java.nio.charset.StandardCharsets.US_ASCII)
                + " still absent 5 minutes after reopening");
      }
      Thread.onSpinWait();
    }
    double millis = (System.nanoTime() - start) / 1e6;
    store.endBatch();
    return millis;
  }

  private void verifySample(SplittableRandom random) {
    long failures = 0;
    for (int i = 0; i < VERIFY_SAMPLE; i++) {
      long n = random.nextLong(keys.keys());
      if (!values.matchesAny(store.get(keys.key(n)), n, VERSIONS)) {
        failures++;
      }
    }
    store.endBatch();
    expectNoFailures("verify after reopen", failures);
    progress("verified %,d random keys after reopen", VERIFY_SAMPLE);
  }

  private synchronized void addToChecksum(long sum) {
    checksum += sum;
  }

  private double timed(String phase, long ops, Phase body)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    long failures = body.run();
    long nanos = System.nanoTime() - start;
    expectNoFailures(phase, failures);
    double opsPerSecond = ops * 1e9 / nanos;
    progress("%s: %,d ops in %.2f s = %,.0f ops/s", phase, ops, nanos / 1e9, opsPerSecond);
    return opsPerSecond;
  }

  private void expectNoFailures(String phase, long failures) {
    if (failures != 0) {
      throw new IllegalStateException(
          name + ": " + phase + " got " + failures + " wrong answers from the store");
    }
  }

  private void progress(String format, Object... args) {
    log.println("[" + name + "] " + String.format(Locale.ROOT, format, args));
    log.flush();
  }

  /** A timed body; returns its number of wrong answers. */
  @FunctionalInterface
  private interface Phase {
    long run() throws IOException, InterruptedException;
  }
}
