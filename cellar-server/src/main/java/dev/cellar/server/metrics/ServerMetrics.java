package dev.cellar.server.metrics;

import dev.cellar.CellarStats;
import dev.cellar.server.command.CommandStats;
import dev.cellar.server.command.ServerContext;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.SummaryWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Quantiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The server's Prometheus metrics, all named {@code cellar_*} (the list is in {@code
 * docs/http.md}). Everything but command latency is read when scraped, from the counters the server
 * keeps anyway ({@link CommandStats}, the engine's {@link CellarStats}), so metrics cost the
 * command path nothing beyond the latency histogram ({@link CommandLatency}).
 *
 * <p>The engine's stats walk every shard and segment, so a scrape reads them once into {@link
 * #engine} and every engine metric of that scrape reports from the same snapshot; scrapes are
 * serialised for that. Configuration is fixed here rather than read from {@code prometheus.*}
 * system properties, as the rest of the server reads settings only through its config.
 *
 * <p>No setting's value is exported, so {@code requirepass} cannot leak here.
 */
public final class ServerMetrics {
  private final ServerContext server;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusProperties properties = PrometheusProperties.builder().build();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final CommandLatency latency;

  /** The engine's stats for the scrape in progress; guarded by {@code this}. */
  private CellarStats engine;

  /** Registers every metric and starts recording command latency into {@code server}. */
  public ServerMetrics(ServerContext server) {
    this.server = server;
    this.engine = server.databases().stats();
    commands();
    engine();
    memory();
    connections();
    latency = new CommandLatency(registry, properties, server.commands().all());
    server.latency(latency);
  }

  /** The content type of {@link #scrape()}: the Prometheus text format, version 0.0.4. */
  public String contentType() {
    return writer.getContentType();
  }

  /** Every metric, now, in the Prometheus text format. */
  public synchronized byte[] scrape() {
    engine = server.databases().stats();
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
    return out.toByteArray();
  }

  /**
   * Command latency summed over commands, as {@code cellar_command_duration_seconds} would show it
   * now; serialised with scrapes, which collect the same histogram.
   */
  public synchronized LatencyDistribution latency() {
    return latency.total();
  }

  private void commands() {
    CommandStats stats = server.stats();
    CounterWithCallback.builder(properties)
        .name("cellar_commands_total")
        .help(
            "Commands run, by command (RESP commands by name; HTTP operations as http.get, http.put, ...).")
        .labelNames("command")
        .callback(
            cb -> {
              for (Map.Entry<String, CommandStats.Counters> e : stats.all().entrySet()) {
                cb.call(e.getValue().calls.sum(), e.getKey());
              }
            })
        .register(registry);
    CounterWithCallback.builder(properties)
        .name("cellar_command_failures_total")
        .help("Commands that answered an error, by command.")
        .labelNames("command")
        .callback(
            cb -> {
              for (Map.Entry<String, CommandStats.Counters> e : stats.all().entrySet()) {
                cb.call(e.getValue().failed.sum(), e.getKey());
              }
            })
        .register(registry);
    counter(
        "cellar_keyspace_hits_total",
        "Reads that found their key.",
        () -> stats.keyspaceHits.sum());
    counter(
        "cellar_keyspace_misses_total",
        "Reads that did not find their key.",
        () -> stats.keyspaceMisses.sum());
    counter(
        "cellar_evicted_keys_total",
        "Keys deleted by the maxmemory policy.",
        () -> stats.evictedKeys.sum());
    counter(
        "cellar_protocol_errors_total",
        "RESP connections closed for a protocol error.",
        () -> stats.protocolErrors.sum());
    counter(
        "cellar_unacknowledged_replies_total",
        "Replies replaced by an error because the fsync covering them failed.",
        () -> stats.unacknowledgedReplies.sum());
  }

  private void engine() {
    gauge(
        "cellar_keys",
        "Keys in the index (expired but not yet reclaimed ones included).",
        () -> engine.keys());
    gauge("cellar_log_bytes", "Bytes of log segment files on disk.", () -> engine.logBytes());
    gauge(
        "cellar_log_garbage_bytes",
        "Bytes of log records known dead (overwritten, deleted, expired).",
        () -> engine.garbageBytes());
    gauge("cellar_log_segments", "Log segment files.", () -> engine.segments());
    gauge(
        "cellar_log_mapped_bytes",
        "Bytes of log mapped into the address space (segments written since the start at their capacity, older ones at their length).",
        () -> engine.mappedBytes());
    gauge(
        "cellar_read_cache_bytes",
        "Capacity of the read cache of io direct (0 in io buffered, which has none).",
        () -> engine.readCacheBytes());
    counter(
        "cellar_read_cache_hits_total",
        "Reads of a read-cache block that found it cached.",
        () -> engine.readCacheHits());
    counter(
        "cellar_read_cache_misses_total",
        "Reads of a read-cache block that read it from the device (read-ahead included).",
        () -> engine.readCacheMisses());
    counter(
        "cellar_read_cache_read_ahead_total",
        "Blocks a batch read ahead of its reads, all at once.",
        () -> engine.readCacheReadAhead());
    counter(
        "cellar_puts_total",
        "Puts applied by the engine since the server started.",
        () -> engine.puts());
    counter(
        "cellar_deletes_total",
        "Deletes that removed a key, since the server started.",
        () -> engine.deletes());
    counter("cellar_fsyncs_total", "Log fsyncs since the server started.", () -> engine.fsyncs());
    SummaryWithCallback.builder(properties)
        .name("cellar_fsync_duration_seconds")
        .help("Time spent in log fsyncs: _sum over _count is the mean fsync latency.")
        .callback(cb -> cb.call(engine.fsyncs(), engine.fsyncNanos() * 1e-9, Quantiles.EMPTY))
        .register(registry);
    counter(
        "cellar_checkpoints_total",
        "Index checkpoints written since the server started.",
        () -> engine.checkpoints());
    counter(
        "cellar_compactions_total",
        "Compaction passes that rewrote at least one segment.",
        () -> engine.compactions());
    counter(
        "cellar_compacted_bytes_total",
        "Log bytes reclaimed by compaction.",
        () -> engine.compactedBytes());
    gauge(
        "cellar_write_failure",
        "1 when writes are disabled after a failed fsync (restart to recover), else 0.",
        () -> server.databases().health().writeFailure() != null ? 1 : 0);
    gauge(
        "cellar_disk_full",
        "1 while writes are refused for lack of disk space (they resume when space returns), else 0.",
        () -> server.databases().health().diskFull() != null ? 1 : 0);
    gauge(
        "cellar_checkpoint_failed",
        "1 when the last checkpoint attempt failed (it is retried), else 0.",
        () -> server.databases().health().checkpointFailure() != null ? 1 : 0);
    gauge(
        "cellar_compaction_failed",
        "1 when the last compaction pass failed (it is retried), else 0.",
        () -> server.databases().health().compactionFailure() != null ? 1 : 0);
  }

  private void memory() {
    gauge(
        "cellar_memory_used_bytes",
        "Memory counted against maxmemory: the off-heap index plus live log bytes.",
        () -> server.memory().used());
    gauge(
        "cellar_memory_offheap_bytes",
        "Off-heap memory held by the index tables.",
        () -> engine.indexBytes());
    gauge("cellar_memory_heap_bytes", "Java heap in use.", () -> ProcessMemory.heap().getUsed());
    gauge(
        "cellar_memory_heap_committed_bytes",
        "Java heap committed by the JVM.",
        () -> ProcessMemory.heap().getCommitted());
    gauge(
        "cellar_memory_rss_bytes",
        "Resident set size of the process (0 off Linux).",
        ProcessMemory::residentBytes);
    gauge(
        "cellar_maxmemory_bytes",
        "The maxmemory setting (0: no limit).",
        () -> server.config().maxMemory());
  }

  private void connections() {
    CommandStats stats = server.stats();
    gauge("cellar_connected_clients", "Open RESP connections.", () -> server.clients().count());
    counter(
        "cellar_connections_received_total",
        "RESP connections accepted.",
        () -> stats.connectionsReceived.sum());
    counter(
        "cellar_connections_rejected_total",
        "RESP connections refused for maxclients.",
        () -> stats.connectionsRejected.sum());
    gauge(
        "cellar_uptime_seconds",
        "Seconds since the server started.",
        () -> (System.currentTimeMillis() - server.startMillis()) / 1000.0);
  }

  private void counter(String name, String help, DoubleSupplier value) {
    CounterWithCallback.builder(properties)
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.getAsDouble()))
        .register(registry);
  }

  private void gauge(String name, String help, DoubleSupplier value) {
    GaugeWithCallback.builder(properties)
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.getAsDouble()))
        .register(registry);
  }
}
