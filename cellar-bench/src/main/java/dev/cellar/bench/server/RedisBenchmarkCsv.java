package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what {@code redis-benchmark --csv} (version 7) prints: a header line, then one line per
 * test, every field quoted:
 *
 * <pre>
 * "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
 * "SET","294117.62","2.311","0.728","2.287","3.687","4.839","4.959"
 * </pre>
 *
 * Columns are found by name, so a version that reorders or adds columns still parses; lines that
 * are not CSV (warnings, should they reach the same stream) are skipped.
 */
final class RedisBenchmarkCsv {
  private static final List<String> REQUIRED =
      List.of(
          "test",
          "rps",
          "avg_latency_ms",
          "min_latency_ms",
          "p50_latency_ms",
          "p95_latency_ms",
          "p99_latency_ms",
          "max_latency_ms");

  private RedisBenchmarkCsv() {}

  /** One test's line: operations per second and latencies in milliseconds. */
  record Row(
      String test,
      double opsPerSecond,
      double avgMs,
      double minMs,
      double p50Ms,
      double p95Ms,
      double p99Ms,
      double maxMs) {}

  static List<Row> parse(String output) {
    Map<String, Integer> columns = null;
    List<Row> rows = new ArrayList<>();
    for (String line : output.split("\r?\n")) {
      if (!line.startsWith("\"")) {
        continue;
      }
      List<String> fields = fields(line);
      if (columns == null) {
        columns = header(fields, line);
        continue;
      }
      rows.add(row(fields, columns, line));
    }
    if (columns == null) {
      throw new IllegalArgumentException("no CSV header in redis-benchmark output:\n" + output);
    }
    return rows;
  }

  private static Map<String, Integer> header(List<String> fields, String line) {
    Map<String, Integer> columns = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      columns.put(fields.get(i), i);
    }
    for (String name : REQUIRED) {
      if (!columns.containsKey(name)) {
        throw new IllegalArgumentException(
            "redis-benchmark CSV header lacks column " + name + ": " + line);
      }
    }
    return columns;
  }

  private static Row row(List<String> fields, Map<String, Integer> columns, String line) {
    if (fields.size() < columns.size()) {
      throw new IllegalArgumentException(
          "redis-benchmark CSV line has "
              + fields.size()
              + " fields, header "
              + columns.size()
              + ": "
              + line);
    }
    return new Row(
        fields.get(columns.get("test")),
        number(fields, columns, "rps", line),
        number(fields, columns, "avg_latency_ms", line),
        number(fields, columns, "min_latency_ms", line),
        number(fields, columns, "p50_latency_ms", line),
        number(fields, columns, "p95_latency_ms", line),
        number(fields, columns, "p99_latency_ms", line),
        number(fields, columns, "max_latency_ms", line));
  }

  private static double number(
      List<String> fields, Map<String, Integer> columns, String name, String line) {
    String text = fields.get(columns.get(name));
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "redis-benchmark CSV: " + name + " is '" + text + "' in: " + line, e);
    }
  }

  /** Splits a line of quoted fields; a quote inside a field is doubled, as in RFC 4180. */
  private static List<String> fields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
        field.append('"');
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }
}
