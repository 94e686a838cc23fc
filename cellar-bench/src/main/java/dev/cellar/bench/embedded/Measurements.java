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
 * One store's results: a value per {@link Metric}, or an explicit "not applicable" (a store without
 * persistence has no disk size or reopen time).
 *
 * <p>A run that fails part-way keeps what it measured before the failure, and says why it failed:
 * each metric was complete and checked when it was recorded, so it stays valid.
 *
 * <p>A child JVM hands its measurements to the parent as a small text file, one {@code name value}
 * line per metric with {@code null} for not applicable, and a {@code failure} line with the reason
 * if the run failed; lines starting with {@code #} are comments.
 */
public final class Measurements {
  private static final String NOT_APPLICABLE = "null";
  private static final String FAILURE = "failure";

  private final Map<Metric, Double> values = new EnumMap<>(Metric.class);
  private String failure;

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

  /** Marks the run as failed; the metrics recorded so far stay. */
  public void fail(String reason) {
    failure = reason.replaceAll("\\s+", " ").trim();
  }

  /** Why the run failed, if it did. */
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  public void write(Path file, String comment) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("# " + comment);
    values.forEach(
        (metric, value) ->
            lines.add(metric.jsonName() + " " + (value == null ? NOT_APPLICABLE : value)));
    if (failure != null) {
      lines.add(FAILURE + " " + failure);
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  public static Measurements read(Path file) throws IOException {
    Measurements measurements = new Measurements();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith(FAILURE + " ")) {
        measurements.fail(line.substring(FAILURE.length() + 1));
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
