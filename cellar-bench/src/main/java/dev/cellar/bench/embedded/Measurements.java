package dev.cellar.bench.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One store's results: a value per {@link Metric}, or an explicit "not applicable" (a store
 * without persistence has no disk size or reopen time).
 *
 * <p>A child JVM hands its measurements to the parent as a small text file, one {@code name
 * value} line per metric with {@code null} for not applicable; lines starting with {@code #} are
 * comments.
 */
public final class Measurements {
  private static final String NOT_APPLICABLE = "null";

  private final Map<Metric, Double> values = new EnumMap<>(Metric.class);

  public void record(Metric metric, double value) {
    values.put(metric, value);
  }

  public void recordNotApplicable(Metric metric) {
    values.put(metric, null);
  }

  /** Whether the metric was measured or declared not applicable. */
  public boolean has(Metric metric) {
    return values.containsKey(metric);
  }

  /** The value, empty when not applicable or not measured. */
  public Optional<Double> get(Metric metric) {
    return Optional.ofNullable(values.get(metric));
  }

  public void write(Path file, String comment) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("# " + comment);
    values.forEach(
        (metric, value) ->
            lines.add(metric.jsonName() + " " + (value == null ? NOT_APPLICABLE : value)));
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  public static Measurements read(Path file) throws IOException {
    Measurements measurements = new Measurements();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.trim().split(" ");
      if (parts.length != 2) {
        throw new IOException("malformed line in " + file + ": '" + line + "'");
      }
      Metric metric = Metric.byJsonName(parts[0]);
      if (parts[1].equals(NOT_APPLICABLE)) {
        measurements.recordNotApplicable(metric);
      } else {
        measurements.record(metric, Double.parseDouble(parts[1]));
      }
    }
    return measurements;
  }
}
