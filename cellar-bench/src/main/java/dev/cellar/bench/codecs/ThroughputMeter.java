package dev.cellar.bench.codecs;

/**
 * Times an approach's operation: a warm-up, then a number of fixed-length iterations, each counting
 * the operations completed.
 *
 * <p>Work runs in batches sized so that one batch takes about {@link #BATCH_TARGET_NANOS}: long
 * enough that reading the clock between batches costs well under 1%, short enough that an
 * iteration overshoots its end by little. The batch is sized once cold and again after warm-up,
 * when the code is compiled and faster. Each batch's result is folded into a sink that is
 * published to a volatile field after every iteration, so the JIT cannot drop the work (the role
 * JMH's Blackhole plays).
 *
 * <p>Owned by the one thread that runs the benchmark.
 */
final class ThroughputMeter {
  private static final long BATCH_TARGET_NANOS = 200_000;
  private static final int MAX_BATCH = 1 << 22;

  /** Where results end up; read by nobody, which the JIT cannot know. */
  static volatile long consumed;

  private final long warmupNanos;
  private final long iterationNanos;
  private final int iterations;
  private long sink;

  ThroughputMeter(double warmupSeconds, double iterationSeconds, int iterations) {
    this.warmupNanos = (long) (warmupSeconds * 1e9);
    this.iterationNanos = (long) (iterationSeconds * 1e9);
    this.iterations = iterations;
  }

  Throughput measure(EncodingApproach approach, Operation operation) {
    int batch = sizeBatch(approach, operation);
    runFor(approach, operation, batch, warmupNanos);
    batch = sizeBatch(approach, operation);
    double[] rates = new double[iterations];
    for (int i = 0; i < iterations; i++) {
      rates[i] = runFor(approach, operation, batch, iterationNanos);
      consumed = sink;
    }
    return new Throughput(rates);
  }

  /** Runs batches for about {@code nanos}; returns operations per second. */
  private double runFor(EncodingApproach approach, Operation operation, int batch, long nanos) {
    long operations = 0;
    long start = System.nanoTime();
    long deadline = start + nanos;
    long now;
    do {
      sink += approach.run(operation, batch);
      operations += batch;
      now = System.nanoTime();
    } while (now < deadline);
    return operations * 1e9 / (now - start);
  }

  private int sizeBatch(EncodingApproach approach, Operation operation) {
    int batch = 1;
    while (batch < MAX_BATCH) {
      long start = System.nanoTime();
      sink += approach.run(operation, batch);
      if (System.nanoTime() - start >= BATCH_TARGET_NANOS) {
        break;
      }
      batch <<= 1;
    }
    return batch;
  }
}
