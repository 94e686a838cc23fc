package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreKind;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The embedded benchmark's JSON output, whose shape other tooling reads:
 *
 * <pre>{@code
 * {"machine": {"cores": 2, ...},
 *  "config": {"keys": 15000000, ...},
 *  "results": [{"store": "cellar", "metric": "get_hit_ops_per_s", "value": 1234567.8}, ...]}
 * }</pre>
 *
 * A metric that does not apply to a store (disk size and reopen time of the heap map) has value
 * {@code null}. A store whose run failed part-way has results only for the phases it completed, and
 * an entry {@code {"store": ..., "error": ...}} in a top-level {@code "failures"} list, which is
 * present only when something failed. Written by hand: the shape is small and fixed, and the module
 * needs no JSON library for it.
 */
final class JsonReport {
  private JsonReport() {}

  static String render(
      Map<String, Object> machine,
      Map<String, Object> config,
      Map<StoreKind, Measurements> results) {
    StringBuilder json = new StringBuilder();
    json.append("{\n  \"machine\": ");
    appendObject(json, machine);
    json.append(",\n  \"config\": ");
    appendObject(json, config);
    json.append(",\n  \"results\": [");
    String separator = "\n";
    for (Map.Entry<StoreKind, Measurements> store : results.entrySet()) {
      for (Metric metric : Metric.values()) {
        if (!store.getValue().has(metric)) {
          continue;
        }
        json.append(separator).append("    {\"store\": ");
        appendString(json, store.getKey().id());
        json.append(", \"metric\": ");
        appendString(json, metric.jsonName());
        json.append(", \"value\": ");
        appendNumber(json, store.getValue().get(metric));
        json.append('}');
        separator = ",\n";
      }
    }
    json.append("\n  ]");
    appendFailures(json, results);
    json.append("\n}\n");
    return json.toString();
  }

  private static void appendFailures(StringBuilder json, Map<StoreKind, Measurements> results) {
    String separator = ",\n  \"failures\": [\n";
    boolean any = false;
    for (Map.Entry<StoreKind, Measurements> store : results.entrySet()) {
      if (store.getValue().failure().isPresent()) {
        json.append(separator).append("    {\"store\": ");
        appendString(json, store.getKey().id());
        json.append(", \"error\": ");
        appendString(json, store.getValue().failure().get());
        json.append('}');
        separator = ",\n";
        any = true;
      }
    }
    if (any) {
      json.append("\n  ]");
    }
  }

  private static void appendObject(StringBuilder json, Map<String, Object> fields) {
    json.append('{');
    Iterator<Map.Entry<String, Object>> it = fields.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Object> field = it.next();
      appendString(json, field.getKey());
      json.append(": ");
      appendValue(json, field.getValue());
      if (it.hasNext()) {
        json.append(", ");
      }
    }
    json.append('}');
  }

  private static void appendValue(StringBuilder json, Object value) {
    switch (value) {
      case null -> json.append("null");
      case Number number -> json.append(number);
      case Boolean bool -> json.append(bool);
      case List<?> list -> {
        json.append('[');
        for (int i = 0; i < list.size(); i++) {
          appendValue(json, list.get(i));
          json.append(i + 1 < list.size() ? ", " : "");
        }
        json.append(']');
      }
      default -> appendString(json, value.toString());
    }
  }

  private static void appendNumber(StringBuilder json, Optional<Double> value) {
    if (value.isEmpty() || value.get().isNaN() || value.get().isInfinite()) {
      json.append("null");
    } else {
      json.append(value.get());
    }
  }

  static void appendString(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
