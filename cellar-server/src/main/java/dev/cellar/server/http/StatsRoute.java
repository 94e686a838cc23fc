package dev.cellar.server.http;

import dev.cellar.CellarStats;
import dev.cellar.server.command.CommandStats;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.metrics.LatencyDistribution;
import dev.cellar.server.metrics.ProcessMemory;
import dev.cellar.server.metrics.ServerMetrics;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/stats}: the figures that move, as counters and gauges at one moment, for the
 * dashboard ({@code GET /}) and for scripts that want rates without Prometheus.
 *
 * <p>Only totals are served, never rates: a rate needs an earlier sample, and keeping one here
 * would make the answer depend on who asked last. A reader subtracts two answers and divides by the
 * difference of their {@code sampled_at_ms}, the server's clock, so a browser whose timers are
 * throttled (a background tab, a headless one on virtual time) still gets true rates. Field names
 * are those of {@code /v1/info} where the figure is the same. Everything comes from the engine's
 * {@link CellarStats} (one snapshot per answer), the server's counters and the latency histogram
 * behind {@code /metrics}, so the page and Prometheus agree.
 */
final class StatsRoute {
  private final ServerContext server;
  private final ServerMetrics metrics;

  StatsRoute(ServerContext server, ServerMetrics metrics) {
    this.server = server;
    this.metrics = metrics;
  }

  HttpReply stats() {
    // Taken first, so every figure below was read at or after this time.
    long now = System.currentTimeMillis();
    CellarStats engine = server.store().stats();
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("sampled_at_ms", now);
    document.put("uptime_in_seconds", (now - server.startMillis()) / 1000);
    document.put("commands", commands());
    document.put("latency", latency(metrics.latency()));
    document.put("clients", clients());
    document.put("memory", memory(engine));
    document.put("log", log(engine));
    document.put(
        "compaction",
        Map.of("compactions", engine.compactions(), "compacted_bytes", engine.compactedBytes()));
    document.put(
        "fsync", Map.of("fsyncs", engine.fsyncs(), "fsync_seconds", engine.fsyncNanos() * 1e-9));
    return HttpReply.json(200, JsonEncoder.encode(document));
  }

  private Map<String, Object> commands() {
    CommandStats c = server.stats();
    long failed = 0;
    for (CommandStats.Counters counters : c.all().values()) {
      failed += counters.failed.sum();
    }
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("total_commands_processed", c.totalCommands());
    s.put("failed_commands", failed);
    s.put("keyspace_hits", c.keyspaceHits.sum());
    s.put("keyspace_misses", c.keyspaceMisses.sum());
    return s;
  }

  /**
   * Bucket bounds without the last, +Inf (JSON has no infinity): {@code counts} has one more entry.
   */
  private static Map<String, Object> latency(LatencyDistribution d) {
    List<Double> bounds = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    for (int i = 0; i < d.counts().length; i++) {
      if (Double.isFinite(d.upperBounds()[i])) {
        bounds.add(d.upperBounds()[i]);
      }
      counts.add(d.counts()[i]);
    }
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("count", d.count());
    s.put("sum_seconds", d.sumSeconds());
    s.put("le_seconds", bounds);
    s.put("counts", counts);
    return s;
  }

  private Map<String, Object> clients() {
    return InfoRoute.clients(server);
  }

  private Map<String, Object> memory(CellarStats engine) {
    MemoryUsage heap = ProcessMemory.heap();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("used_memory", server.memory().used());
    s.put("maxmemory", server.config().maxMemory());
    s.put("used_memory_heap", heap.getUsed());
    s.put("used_memory_heap_committed", heap.getCommitted());
    s.put("used_memory_offheap_index", engine.indexBytes());
    s.put("mapped_log_bytes", engine.mappedBytes());
    s.put("used_memory_rss", ProcessMemory.residentBytes());
    return s;
  }

  private static Map<String, Object> log(CellarStats engine) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("keys", engine.keys());
    s.put("log_bytes", engine.logBytes());
    s.put("garbage_bytes", engine.garbageBytes());
    s.put("segments", engine.segments());
    s.put("puts", engine.puts());
    s.put("deletes", engine.deletes());
    s.put("checkpoints", engine.checkpoints());
    return s;
  }
}
