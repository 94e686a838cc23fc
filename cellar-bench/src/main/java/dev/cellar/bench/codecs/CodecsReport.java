package dev.cellar.bench.codecs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results of a codecs run, as the seed's table (with each figure's ratio to the best of its
 * column) and as JSON.
 */
final class CodecsReport {
  private final String settings;
  private final String environment;
  private final Map<String, Object> settingsJson;
  private final List<ApproachResult> rows = new ArrayList<>();

  CodecsReport(String settings, String environment, Map<String, Object> settingsJson) {
    this.settings = settings;
    this.environment = environment;
    this.settingsJson = settingsJson;
  }

  void add(ApproachResult result) {
    rows.add(result);
  }

  private double best(Operation operation) {
    return rows.stream().mapToDouble(r -> r.throughput().get(operation).median()).max().orElse(0);
  }

  /** Times slower than the best of the column: 1.0 for the best. */
  private double ratio(ApproachResult row, Operation operation) {
    return best(operation) / row.throughput().get(operation).median();
  }

  String table() {
    StringBuilder out = new StringBuilder();
    out.append("Price update with embedded instrument (seed 003): operations per second, median")
        .append(" of the iterations, +- half their range; \"x\" is times slower than the best.\n");
    out.append(settings).append('\n').append(environment).append("\n\n");
    int width = Math.max(8, rows.stream().mapToInt(r -> r.label().length()).max().orElse(0));
    out.append(String.format(Locale.ROOT, "%-" + width + "s %5s", "approach", "bytes"));
    for (Operation operation : Operation.values()) {
      out.append(String.format(Locale.ROOT, " | %-26s", operation.label + " ops/s"));
    }
    out.append('\n');
    for (ApproachResult row : rows) {
      out.append(String.format(Locale.ROOT, "%-" + width + "s %5d", row.label(), row.bytes()));
      for (Operation operation : Operation.values()) {
        Throughput t = row.throughput().get(operation);
        out.append(
            String.format(
                Locale.ROOT,
                " | %,12.0f +-%2.0f%% %6.1fx",
                t.median(),
                t.spread() * 100,
                ratio(row, operation)));
      }
      out.append('\n');
    }
    if (rows.size() > 1) {
      double worst = rows.stream().mapToDouble(r -> ratio(r, Operation.ROUND_TRIP)).max().orElse(1);
      out.append(
          String.format(
              Locale.ROOT, "\nslowest round trip against fastest: a factor of %.0f\n", worst));
    }
    return out.toString();
  }

  String json() {
    StringBuilder out = new StringBuilder("{\n");
    out.append("  \"benchmark\": \"codecs\",\n");
    out.append("  \"message\": \"price update with embedded instrument (seed 003)\",\n");
    out.append("  \"settings\": ").append(object(settingsJson)).append(",\n");
    out.append("  \"environment\": ").append(quote(environment)).append(",\n");
    out.append("  \"results\": [");
    for (int i = 0; i < rows.size(); i++) {
      ApproachResult row = rows.get(i);
      out.append(i == 0 ? "\n" : ",\n");
      out.append("    {\"approach\": ")
          .append(quote(row.key()))
          .append(", \"label\": ")
          .append(quote(row.label()))
          .append(", \"bytes\": ")
          .append(row.bytes());
      for (Operation operation : Operation.values()) {
        Throughput t = row.throughput().get(operation);
        out.append(",\n      ")
            .append(quote(operation.jsonKey))
            .append(": {")
            .append("\"opsPerSecond\": ")
            .append(Math.round(t.median()))
            .append(", \"min\": ")
            .append(Math.round(t.min()))
            .append(", \"max\": ")
            .append(Math.round(t.max()))
            .append(", \"timesSlowerThanBest\": ")
            .append(String.format(Locale.ROOT, "%.3f", ratio(row, operation)))
            .append(", \"iterations\": [");
        double[] each = t.perIteration();
        for (int k = 0; k < each.length; k++) {
          out.append(k == 0 ? "" : ", ").append(Math.round(each[k]));
        }
        out.append("]}");
      }
      out.append("}");
    }
    out.append("\n  ]\n}\n");
    return out.toString();
  }

  private static String object(Map<String, Object> fields) {
    StringBuilder out = new StringBuilder("{");
    fields.forEach(
        (name, value) -> {
          out.append(out.length() == 1 ? "" : ", ").append(quote(name)).append(": ");
          out.append(value instanceof Number || value instanceof Boolean ? value : quote(value));
        });
    return out.append('}').toString();
  }

  private static String quote(Object value) {
    String text = String.valueOf(value);
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
