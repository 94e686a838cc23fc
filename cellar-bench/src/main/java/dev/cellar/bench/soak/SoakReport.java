package dev.cellar.bench.soak;

import dev.cellar.bench.server.JsonReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soak's report: a Markdown section for {@code docs/benchmarks.md} (the verdicts, the memory
 * series summarised, the totals, and the readings thinned to about a dozen rows) and the JSON
 * record with every reading ({@code docs/benchmarks/soak-<date>.json}).
 */
final class SoakReport {
  private static final int TABLE_ROWS = 12;

  private SoakReport() {}

  static String markdown(String heading, SoakResult result) {
    StringBuilder md = new StringBuilder();
    md.append(heading).append("\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "**Verdict: %s.** Flat means the line fitted through the second half's readings taken right after each full collection "
                + "(without full collections: through the highest reading of each window of up to %d s) rises by less than %.0f%% of its level and by less than %d MiB; the run passes "
                + "when the anonymous RSS (the process's own memory: heap and native) and the live heap are flat, no request failed or took over %d ms and the server neither died nor logged an "
                + "OutOfMemoryError%s.%n%n",
            result.passed()
                ? "pass"
                : result.judged() || !result.servedAndDefended()
                    ? "FAIL"
                    : "none, the run is too short (a second half under "
                        + Flatness.MIN_JUDGED_SECONDS / 60
                        + " minutes)",
            Flatness.PEAK_WINDOW_SECONDS,
            Flatness.MAX_RELATIVE_GROWTH * 100,
            Flatness.MAX_GROWTH_MIB,
            LoadCounters.STALL_MILLIS,
            result.hostile().isEmpty()
                ? ""
                : "; and, of the hostile clients, each pattern ran without an unexpected "
                    + "answer and was cut off or answered as the server's defences require, and afterwards the server's connections were the "
                    + "well-behaved ones only"));
    md.append(
        "| series | first | last | max | second half: slope | second half: rise | verdict |\n");
    md.append("|---|---:|---:|---:|---:|---:|---|\n");
    for (Flatness f : result.memory()) {
      row(md, f, f.verdict());
    }
    for (Flatness f : others(result)) {
      row(md, f, "(not judged)");
    }
    md.append('\n');
    totals(md, result);
    hostile(md, result);
    md.append(
        "\n| time | RSS | RSS anon | heap live | used_memory | log | keys | ops/s | compactions | errors |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Sample s : thinned(result.samples())) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d:%02d | %s | %s | %s | %s | %s | %,d | %,.0f | %,d | %,d |%n",
              s.seconds() / 60,
              s.seconds() % 60,
              mib(s.vmRss()),
              mib(s.rssAnon()),
              s.heapLive() < 0 ? "" : mib(s.heapLive()),
              mib(s.usedMemory()),
              mib(s.logBytes()),
              s.keys(),
              s.opsPerSecond(),
              s.compactions(),
              s.errors()));
    }
    return md.toString();
  }

  private static void totals(StringBuilder md, SoakResult r) {
    List<Sample> samples = r.samples();
    long compactions = samples.isEmpty() ? 0 : samples.getLast().compactions();
    md.append(
        String.format(
            Locale.ROOT,
            "%,d operations in %d s (%,.0f/s); errors: %d error replies, %d wrong replies, %d lost connections; "
                + "%d compaction passes; %d BGSAVEs (%d refused while one ran); %d failed full-GC requests; server %s; "
                + "OutOfMemoryError lines in its output: %d; longest operation %,d ms, %d over %d ms.%n",
            r.operations(),
            r.durationSeconds(),
            r.operations() / (double) Math.max(1, r.durationSeconds()),
            r.errorReplies(),
            r.wrongReplies(),
            r.connectionFailures(),
            compactions,
            r.bgsaves(),
            r.bgsavesRefused(),
            r.fullCollectionsFailed(),
            r.serverExit() == null ? "alive at the end" : r.serverExit(),
            r.outOfMemoryLines(),
            r.longestMillis(),
            r.stalls(),
            LoadCounters.STALL_MILLIS));
    for (String problem : r.problems()) {
      md.append("- ").append(problem.replace('|', '/')).append('\n');
    }
  }

  private static void hostile(StringBuilder md, SoakResult r) {
    if (r.hostile().isEmpty()) {
      return;
    }
    md.append(
        "\n| hostile pattern | attempts | answered | disconnects seen | errors | verdict |\n");
    md.append("|---|---:|---:|---:|---:|---|\n");
    for (PatternCounters p : r.hostile()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %,d | %,d | %s |%n",
              p.description().replace('|', '/'),
              p.attempts().sum(),
              p.completed().sum(),
              p.disconnects().sum(),
              p.errors().sum(),
              p.passed() ? "ok" : "FAIL"));
    }
    ConnectionsAfter c = r.connections();
    md.append('\n')
        .append(
            c == null
                ? "Connections after the hostile clients stopped: not read (the run ended early)."
                : String.format(
                    Locale.ROOT,
                    "After the hostile clients stopped: %s (%s); clients evicted by maxmemory-clients over the run: %,d.",
                    c.describe(),
                    c.returned() ? "ok" : "FAIL",
                    c.evictedClients()))
        .append('\n');
  }

  private static void row(StringBuilder md, Flatness f, String verdict) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %s | %+.1f MiB/10 min | %+.1f MiB | %s |%n",
            f.name(),
            mib(f.first()),
            mib(f.last()),
            mib(f.max()),
            f.secondHalf().mibPerTenMinutes(),
            f.secondHalf().growth() / (1 << 20),
            verdict));
  }

  private static List<Flatness> others(SoakResult r) {
    return List.of(
        Flatness.of("RSS (VmRSS), window peaks", r.samples(), Sample::vmRss),
        Flatness.afterCollections("RSS (VmRSS), after each full GC", r.samples(), Sample::vmRss),
        Flatness.of("RSS, anonymous (RssAnon), window peaks", r.samples(), Sample::rssAnon),
        Flatness.of("heap, sampled (garbage included)", r.samples(), Sample::heapUsed),
        Flatness.of("used_memory (index + live log)", r.samples(), Sample::usedMemory),
        Flatness.of("log on disk", r.samples(), Sample::logBytes));
  }

  /** About {@link #TABLE_ROWS} readings evenly spread, always with the last. */
  private static List<Sample> thinned(List<Sample> samples) {
    int step = Math.max(1, (samples.size() + TABLE_ROWS - 1) / TABLE_ROWS);
    List<Sample> rows = new ArrayList<>();
    for (int i = step - 1; i < samples.size(); i += step) {
      rows.add(samples.get(i));
    }
    if (!samples.isEmpty() && rows.getLast() != samples.getLast()) {
      rows.add(samples.getLast());
    }
    return rows;
  }

  static String json(Map<String, Object> machine, Map<String, Object> config, SoakResult r) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    root.put("config", config);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("passed", r.passed());
    summary.put("judged", r.judged());
    summary.put("duration_s", r.durationSeconds());
    summary.put("operations", r.operations());
    summary.put("error_replies", r.errorReplies());
    summary.put("wrong_replies", r.wrongReplies());
    summary.put("connection_failures", r.connectionFailures());
    summary.put("bgsaves", r.bgsaves());
    summary.put("bgsaves_refused", r.bgsavesRefused());
    summary.put("full_gc_requests_failed", r.fullCollectionsFailed());
    summary.put("server_exit", r.serverExit());
    summary.put("out_of_memory_lines", r.outOfMemoryLines());
    summary.put("stalls", r.stalls());
    summary.put("stall_ms", LoadCounters.STALL_MILLIS);
    summary.put("longest_operation_ms", r.longestMillis());
    summary.put("served_and_defended", r.servedAndDefended());
    root.put("summary", summary);
    root.put("hostile", hostileJson(r));
    List<Map<String, Object>> series = new ArrayList<>();
    for (Flatness f : r.memory()) {
      series.add(series(f, f.verdict()));
    }
    for (Flatness f : others(r)) {
      series.add(series(f, null));
    }
    root.put("series", series);
    root.put("problems", r.problems());
    root.put("samples", r.samples().stream().map(Sample::toJson).toList());
    return JsonReport.render(root);
  }

  /** The hostile patterns' counters and the connections after them; null when they did not run. */
  private static Map<String, Object> hostileJson(SoakResult r) {
    if (r.hostile().isEmpty()) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("defended", r.hostileDefended());
    m.put("patterns", r.hostile().stream().map(PatternCounters::toJson).toList());
    ConnectionsAfter c = r.connections();
    if (c != null) {
      m.put("well_behaved_connections", c.expectedResp());
      m.put("connected_clients_after", c.resp());
      m.put("http_connections_after", c.http());
      m.put("connections_returned", c.returned());
      m.put("connections_settled_s", Math.round(c.seconds() * 10) / 10.0);
      m.put("evicted_clients", c.evictedClients());
    }
    return m;
  }

  private static Map<String, Object> series(Flatness f, String verdict) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("series", f.name());
    m.put("first_bytes", f.first());
    m.put("last_bytes", f.last());
    m.put("max_bytes", f.max());
    m.put("second_half_points", f.secondHalf().points());
    m.put(
        "second_half_mib_per_10_min", Math.round(f.secondHalf().mibPerTenMinutes() * 100) / 100.0);
    m.put("second_half_growth_bytes", Math.round(f.secondHalf().growth()));
    m.put("verdict", verdict);
    return m;
  }

  static String mib(long bytes) {
    return bytes < 0 ? "" : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }
}
