package dev.cellar.bench.codecs;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Times an approach's operation: a warm-up, then a number of fixed-length iterations, each counting
 * the operations completed.
 *
 * <p>Work runs in batches sized so that one batch takes about {@link #BATCH_TARGET_NANOS}: long
 * enough that reading the clock between batches costs well under 1%, short enough that an iteration
 * overshoots its end by little. The batch is sized once cold and again after warm-up, when the code
 * is compiled and faster. Each batch's result is folded into a sink that is published to a volatile
 * field after every iteration, so the JIT cannot drop the work (the role JMH's Blackhole plays).
 *
 * <p>Iterations always last their length in wall-clock time; the rate divides the operations by the
 * elapsed time of the chosen {@link Clock}. CPU time discounts the time the thread spent
 * descheduled on a busy machine, but also the work of the GC threads, which flatters approaches
 * that allocate.
 *
 * <p>Owned by the one thread that runs the benchmark.
 */
final class ThroughputMeter {
  /** What a rate is per: a second of wall-clock time, or of the benchmark thread's CPU time. */
  enum Clock {
    WALL,
    CPU;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    long now() {
      return this == WALL ? System.nanoTime() : THREADS.getCurrentThreadCpuTime();
    }
  }

  private static final long BATCH_TARGET_NANOS = 200_000;
  private static final int MAX_BATCH = 1 << 22;

  /** Where results end up; read by nobody, which the JIT cannot know. */
  static volatile long consumed;

  private final long warmupNanos;
  private final long iterationNanos;
  private final int iterations;
  private final Clock clock;
  private long sink;

  ThroughputMeter(double warmupSeconds, double iterationSeconds, int iterations, Clock clock) {
    if (clock == Clock.CPU && !Clock.THREADS.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException("this JVM cannot measure a thread's CPU time");
    }
    this.warmupNanos = (long) (warmupSeconds * 1e9);
    this.iterationNanos = (long) (iterationSeconds * 1e9);
    this.iterations = iterations;
    this.clock = clock;
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

  /** Runs batches for about {@code nanos} of wall-clock time; returns operations per second. */
  private double runFor(EncodingApproach approach, Operation operation, int batch, long nanos) {
    long operations = 0;
    long deadline = System.nanoTime() + nanos;
    long start = clock.now();
    do {
      sink += approach.run(operation, batch);
      operations += batch;
    } while (System.nanoTime() < deadline);
    return operations * 1e9 / Math.max(1, clock.now() - start);
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
