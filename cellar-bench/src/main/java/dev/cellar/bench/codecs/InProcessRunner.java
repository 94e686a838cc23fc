package dev.cellar.bench.codecs;

import java.io.PrintWriter;
import java.util.EnumMap;
import java.util.Locale;

/**
 * Verifies and measures approaches in this JVM, one after the other: every operation of one
 * approach, then the next, with a collection before each measurement so that one's garbage is not
 * charged to the next.
 */
final class InProcessRunner {
  private final PriceUpdate[] samples;
  private final ThroughputMeter meter;
  private final PrintWriter progress;

  InProcessRunner(PriceUpdate[] samples, ThroughputMeter meter, PrintWriter progress) {
    this.samples = samples;
    this.meter = meter;
    this.progress = progress;
  }

  ApproachResult run(String key) {
    try (EncodingApproach approach = Approaches.create(key, samples)) {
      approach.verify();
      EnumMap<Operation, Throughput> results = new EnumMap<>(Operation.class);
      for (Operation operation : Operation.values()) {
        progress.printf(Locale.ROOT, "measuring %s: %s%n", approach.label(), operation.label);
        progress.flush();
        System.gc();
        results.put(operation, meter.measure(approach, operation));
      }
      return new ApproachResult(key, approach.label(), approach.encodedLength(samples[0]), results);
    }
  }
}
