package dev.cellar.server.command;

import java.util.concurrent.atomic.LongAdder;

/**
 * INFO's instantaneous rates ({@code instantaneous_ops_per_sec}, {@code instantaneous_input_kbps},
 * {@code instantaneous_output_kbps}) and {@code MEMORY STATS}' peak, measured as Redis does: every
 * 100 ms the counters are read, the rate since the previous reading is kept in a ring of 16, and
 * the figure shown is the ring's mean, so it covers the last 1.6 s.
 *
 * <p>Concurrency: {@link #sample} runs on one event loop (scheduled by the listener); INFO reads
 * the published volatile results from any thread.
 */
public final class StatsSampler {
  static final int SAMPLES = 16;

  /** One rate: a ring of per-interval rates and the counter's last reading. */
  private static final class Rate {
    final double[] ring = new double[SAMPLES];
    int next;
    long last = -1;
    volatile double mean;

    void add(long value, long elapsedNanos) {
      if (last >= 0 && elapsedNanos > 0) {
        ring[next] =
            Math.max(0, value - last) * 1e9 / elapsedNanos; // CONFIG RESETSTAT: no negative rate
        next = (next + 1) % SAMPLES;
        double sum = 0;
        for (double r : ring) {
          sum += r;
        }
        mean = sum / SAMPLES;
      }
      last = value;
    }
  }

  private final CommandStats stats;
  private final MemoryGuard memory;
  private final Rate ops = new Rate();
  private final Rate input = new Rate();
  private final Rate output = new Rate();
  private final long startupMemory;
  private volatile long peakMemory;
  private long lastNanos;
  private int ticks;
  private final Runnable expiries;

  /**
   * Bytes read from and written to RESP clients ({@code total_net_input_bytes}, {@code
   * total_net_output_bytes}).
   */
  public final LongAdder netInputBytes = new LongAdder();

  public final LongAdder netOutputBytes = new LongAdder();

  StatsSampler(CommandStats stats, MemoryGuard memory, Runnable expiries) {
    this.stats = stats;
    this.memory = memory;
    this.expiries = expiries;
    this.startupMemory = memory.used();
    this.peakMemory = startupMemory;
  }

  /** Takes one reading; called every 100 ms. */
  public void sample() {
    long now = System.nanoTime();
    long elapsed = lastNanos == 0 ? 0 : now - lastNanos;
    lastNanos = now;
    ops.add(stats.totalCommands(), elapsed);
    input.add(netInputBytes.sum(), elapsed);
    output.add(netOutputBytes.sum(), elapsed);
    peakMemory = Math.max(peakMemory, memory.used());
    if (ticks++ % 10 == 0) {
      try {
        expiries.run(); // once a second: the keyspace's expiry figures change slowly
      } catch (RuntimeException e) {
        // The store is closing or a read failed: keep the last estimate. An exception escaping a
        // periodic task would cancel it, and the rates above would stop with it.
      }
    }
  }

  /** {@code CONFIG RESETSTAT}: the byte totals start again from 0, as Redis's do. */
  void reset() {
    netInputBytes.reset();
    netOutputBytes.reset();
  }

  public long opsPerSecond() {
    return Math.round(ops.mean);
  }

  public double inputKbps() {
    return input.mean / 1024;
  }

  public double outputKbps() {
    return output.mean / 1024;
  }

  /** The most {@code used_memory} seen (at a sample, or now). */
  public long peakMemory() {
    return Math.max(peakMemory, memory.used());
  }

  /** {@code used_memory} when the server started. */
  public long startupMemory() {
    return startupMemory;
  }
}
