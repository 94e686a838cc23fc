package dev.cellar.server.metrics;

import dev.cellar.server.command.CommandSpec;
import dev.cellar.server.command.LatencyRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.util.Arrays;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * {@code cellar_command_duration_seconds}: a histogram of command latency by command, fed by the
 * dispatcher after every command, so this is on the hot path.
 *
 * <p>Finding a command's series through the histogram ({@code labelValues(name)}) would build a
 * label list and hash it per command. Instead each known {@link CommandSpec} gets a slot in an
 * identity map built once and never changed after construction (so event loops read it without a
 * lock); a slot fills with its series the first time that command runs. Series are made lazily so
 * that a scrape shows only commands that ran, not a row of zero buckets for each of ~100 commands.
 * A spec not in the map (HTTP operations) takes the slow path.
 *
 * <p>Classic buckets only, from 10 µs to 2.5 s: native histograms reach Prometheus only through the
 * protobuf format, and the text format is what {@code /metrics} serves. No exemplars: they would
 * consult the tracing context on every observation.
 */
final class CommandLatency implements LatencyRecorder {
  static final double[] BUCKETS = {
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1, 2.5
  };

  /** A command's series, filled on its first call; racing fills store the same series. */
  private static final class Slot {
    volatile DistributionDataPoint series;
  }

  private final Histogram histogram;
  private final Map<CommandSpec, Slot> slots = new IdentityHashMap<>();

  CommandLatency(
      PrometheusRegistry registry,
      PrometheusProperties properties,
      Collection<CommandSpec> commands) {
    histogram =
        Histogram.builder(properties)
            .name("cellar_command_duration_seconds")
            .help(
                "Time to run a command, from dispatch to reply written (RESP) or answer built (HTTP).")
            .labelNames("command")
            .classicOnly()
            .classicUpperBounds(BUCKETS)
            .withoutExemplars()
            .register(registry);
    for (CommandSpec spec : commands) {
      slots.put(spec, new Slot());
    }
  }

  @Override
  public void record(CommandSpec command, long nanos) {
    Slot slot = slots.get(command);
    DistributionDataPoint series;
    if (slot == null) {
      series = histogram.labelValues(command.name());
    } else {
      series = slot.series;
      if (series == null) {
        series = histogram.labelValues(command.name());
        slot.series = series;
      }
    }
    series.observe(nanos * 1e-9);
  }

  /** All commands' latency summed into one distribution; read like a scrape, off the hot path. */
  LatencyDistribution total() {
    double[] bounds = new double[BUCKETS.length + 1];
    System.arraycopy(BUCKETS, 0, bounds, 0, BUCKETS.length);
    bounds[BUCKETS.length] = Double.POSITIVE_INFINITY;
    long[] counts = new long[bounds.length];
    long count = 0;
    double sum = 0;
    for (HistogramSnapshot.HistogramDataPointSnapshot series :
        histogram.collect().getDataPoints()) {
      ClassicHistogramBuckets buckets = series.getClassicBuckets();
      for (int i = 0; i < buckets.size(); i++) {
        counts[bucketOf(bounds, buckets.getUpperBound(i))] += buckets.getCount(i);
      }
      count += series.getCount();
      sum += series.getSum();
    }
    return new LatencyDistribution(bounds, counts, count, sum);
  }

  private static int bucketOf(double[] bounds, double upperBound) {
    for (int i = 0; i < bounds.length; i++) {
      if (bounds[i] == upperBound) {
        return i;
      }
    }
    throw new IllegalStateException(
        "bucket bound " + upperBound + " is not one of " + Arrays.toString(bounds));
  }
}
