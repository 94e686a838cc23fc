package dev.cellar.bench.cache;

import dev.cellar.bench.server.JsonReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results as markdown (one miss-ratio table per trace, a summary against LRU, and the
 * throughput rows) and as JSON:
 *
 * <pre>{@code
 * {"machine": {...}, "settings": {"keys": 1000000, "requests": 10000000, "seed": 42, ...},
 *  "results": [{"trace": "zipf-0.99", "policy": "s3-fifo", "size_percent": 10.0,
 *               "capacity": 100000, "requests": 10000000, "misses": .., "miss_ratio": ..,
 *               "miss_ratio_vs_lru": -0.08, "hits_that_wrote": .., "writing_hit_share": ..,
 *               "largest_size": 100000}, ...],
 *  (the scan trace's rows also have "after_scan_requests", "after_scan_misses" and
 *   "after_scan_miss_ratio": the tenth of the trace right after the scan)
 *  "throughput": [{"trace": "zipf-0.99", "policy": "lru", "size_percent": 10.0, "threads": 1,
 *                  "requests_per_s": ..}, ...]}
 * }</pre>
 *
 * {@code miss_ratio_vs_lru} is the relative change of the miss ratio against LRU's on the same
 * trace and size, (mr - mr_LRU) / mr_LRU: negative is fewer misses than LRU, -0.1 a tenth fewer.
 */
final class CachePolicyReport {
  record Throughput(PolicyKind policy, TraceKind trace, double sizePercent, double requestsPerS) {}

  private final List<SimulationResult> results;
  private final List<Throughput> throughput;

  CachePolicyReport(List<SimulationResult> results, List<Throughput> throughput) {
    this.results = List.copyOf(results);
    this.throughput = List.copyOf(throughput);
  }

  /** The relative change of {@code r}'s miss ratio against LRU's, or NaN without an LRU row. */
  double versusLru(SimulationResult r) {
    for (SimulationResult base : results) {
      if (base.policy() == PolicyKind.LRU
          && base.trace() == r.trace()
          && base.capacity() == r.capacity()) {
        return base.missRatio() == 0 ? Double.NaN : r.missRatio() / base.missRatio() - 1;
      }
    }
    return Double.NaN;
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    for (TraceKind trace : traces()) {
      md.append("\n**").append(trace.id()).append("**: miss ratio (change against LRU's)\n\n");
      List<SimulationResult> rows = of(trace);
      List<Double> sizes = sizes(rows);
      md.append("| policy |");
      for (double size : sizes) {
        md.append(' ')
            .append(percent(size))
            .append(" (")
            .append(String.format(Locale.ROOT, "%,d", capacityAt(rows, size)))
            .append(") |");
      }
      md.append("\n|---|").append("---:|".repeat(sizes.size())).append('\n');
      for (PolicyKind policy : policies()) {
        md.append("| ").append(policy.id()).append(" |");
        for (double size : sizes) {
          SimulationResult r = find(trace, policy, size);
          md.append(' ').append(cell(r)).append(" |");
        }
        md.append('\n');
      }
    }
    md.append(windows());
    md.append(summary());
    md.append(throughputTable());
    return md.toString();
  }

  /** Miss ratios right after the scan, for the traces that have such a window. */
  private String windows() {
    StringBuilder md = new StringBuilder();
    for (TraceKind trace : traces()) {
      List<SimulationResult> rows = of(trace);
      if (rows.isEmpty() || rows.get(0).windowRequests() == 0) {
        continue;
      }
      md.append("\n**")
          .append(trace.id())
          .append(
              String.format(
                  Locale.ROOT,
                  ", the %,d requests right after the scan",
                  rows.get(0).windowRequests()))
          .append("**: miss ratio (change against LRU's)\n\n");
      List<Double> sizes = sizes(rows);
      md.append("| policy |");
      for (double size : sizes) {
        md.append(' ').append(percent(size)).append(" |");
      }
      md.append("\n|---|").append("---:|".repeat(sizes.size())).append('\n');
      for (PolicyKind policy : policies()) {
        md.append("| ").append(policy.id()).append(" |");
        for (double size : sizes) {
          SimulationResult r = find(trace, policy, size);
          SimulationResult lru = find(trace, PolicyKind.LRU, size);
          String cell = r == null ? "-" : String.format(Locale.ROOT, "%.4f", r.windowMissRatio());
          if (r != null && lru != null && policy != PolicyKind.LRU && lru.windowMisses() > 0) {
            cell += " (" + signedPercent(r.windowMissRatio() / lru.windowMissRatio() - 1) + ")";
          }
          md.append(' ').append(cell).append(" |");
        }
        md.append('\n');
      }
    }
    return md.toString();
  }

  private String summary() {
    StringBuilder md =
        new StringBuilder("\n**Mean change of the miss ratio against LRU's, over the sizes**\n\n");
    md.append("| policy |");
    for (TraceKind trace : traces()) {
      md.append(' ').append(trace.id()).append(" |");
    }
    md.append("\n|---|").append("---:|".repeat(traces().size())).append('\n');
    for (PolicyKind policy : policies()) {
      if (policy == PolicyKind.LRU) {
        continue;
      }
      md.append("| ").append(policy.id()).append(" |");
      for (TraceKind trace : traces()) {
        double sum = 0;
        int n = 0;
        for (SimulationResult r : of(trace)) {
          double v = versusLru(r);
          if (r.policy() == policy && !Double.isNaN(v)) {
            sum += v;
            n++;
          }
        }
        md.append(' ').append(n == 0 ? "-" : signedPercent(sum / n)).append(" |");
      }
      md.append('\n');
    }
    return md.toString();
  }

  private String throughputTable() {
    if (throughput.isEmpty()) {
      return "";
    }
    Throughput first = throughput.get(0);
    StringBuilder md =
        new StringBuilder("\n**Requests/s, one thread, ")
            .append(first.trace().id())
            .append(" at ")
            .append(percent(first.sizePercent()))
            .append("**, and the hits that wrote the policy's shared state\n\n");
    md.append("| policy | requests/s | miss ratio | hits that wrote | what a hit writes |\n");
    md.append("|---|---:|---:|---:|---|\n");
    for (Throughput t : throughput) {
      SimulationResult r = find(t.trace(), t.policy(), t.sizePercent());
      md.append("| ")
          .append(t.policy().id())
          .append(" | ")
          .append(String.format(Locale.ROOT, "%,.0f", t.requestsPerS()))
          .append(" | ")
          .append(r == null ? "-" : String.format(Locale.ROOT, "%.4f", r.missRatio()))
          .append(" | ")
          .append(r == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * r.writingHitShare()))
          .append(" | ")
          .append(hitWrite(t.policy()))
          .append(" |\n");
    }
    return md.toString();
  }

  private static String hitWrite(PolicyKind policy) {
    return switch (policy) {
      case LRU -> "relinks the entry at the head (six pointers, under a lock)";
      case CLOCK -> "sets its reference bit if clear";
      case SIEVE -> "sets its visited bit if clear";
      case S3_FIFO -> "raises its 2-bit counter if below 3";
      case RANDOM -> "nothing";
    };
  }

  String json(Map<String, Object> machine, Map<String, Object> settings) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    root.put("settings", settings);
    List<Object> rows = new ArrayList<>();
    for (SimulationResult r : results) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("trace", r.trace().id());
      m.put("policy", r.policy().id());
      m.put("size_percent", r.sizePercent());
      m.put("capacity", r.capacity());
      m.put("requests", r.requests());
      m.put("misses", r.misses());
      m.put("miss_ratio", round(r.missRatio()));
      double vs = versusLru(r);
      m.put("miss_ratio_vs_lru", Double.isNaN(vs) ? null : round(vs));
      m.put("hits_that_wrote", r.hitsThatWrote());
      m.put("writing_hit_share", round(r.writingHitShare()));
      m.put("largest_size", r.largestSize());
      if (r.windowRequests() > 0) {
        m.put("after_scan_requests", r.windowRequests());
        m.put("after_scan_misses", r.windowMisses());
        m.put("after_scan_miss_ratio", round(r.windowMissRatio()));
      }
      rows.add(m);
    }
    root.put("results", rows);
    List<Object> speed = new ArrayList<>();
    for (Throughput t : throughput) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("trace", t.trace().id());
      m.put("policy", t.policy().id());
      m.put("size_percent", t.sizePercent());
      m.put("threads", 1);
      m.put("requests_per_s", Math.round(t.requestsPerS()));
      speed.add(m);
    }
    root.put("throughput", speed);
    return JsonReport.render(root);
  }

  private List<TraceKind> traces() {
    return results.stream().map(SimulationResult::trace).distinct().toList();
  }

  private List<PolicyKind> policies() {
    return results.stream().map(SimulationResult::policy).distinct().toList();
  }

  private List<SimulationResult> of(TraceKind trace) {
    return results.stream().filter(r -> r.trace() == trace).toList();
  }

  private static List<Double> sizes(List<SimulationResult> rows) {
    return rows.stream().map(SimulationResult::sizePercent).distinct().toList();
  }

  private static int capacityAt(List<SimulationResult> rows, double size) {
    return rows.stream().filter(r -> r.sizePercent() == size).findFirst().orElseThrow().capacity();
  }

  private SimulationResult find(TraceKind trace, PolicyKind policy, double size) {
    for (SimulationResult r : results) {
      if (r.trace() == trace && r.policy() == policy && r.sizePercent() == size) {
        return r;
      }
    }
    return null;
  }

  private String cell(SimulationResult r) {
    if (r == null) {
      return "-";
    }
    String ratio = String.format(Locale.ROOT, "%.4f", r.missRatio());
    double vs = versusLru(r);
    return r.policy() == PolicyKind.LRU || Double.isNaN(vs)
        ? ratio
        : ratio + " (" + signedPercent(vs) + ")";
  }

  private static String signedPercent(double fraction) {
    return String.format(Locale.ROOT, "%+.1f%%", 100 * fraction).replace('-', '\u2212');
  }

  private static String percent(double size) {
    return (size == Math.rint(size) ? String.valueOf((long) size) : String.valueOf(size)) + "%";
  }

  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
