package dev.cellar.server.http;

import dev.cellar.CellarHealth;
import dev.cellar.CellarStats;
import dev.cellar.CellarVersion;
import dev.cellar.DiskFullException;
import dev.cellar.server.command.CommandStats;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.metrics.ProcessMemory;
import java.io.IOException;
import java.lang.management.MemoryUsage;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /healthz} and {@code GET /v1/info}: the server's state as JSON. {@code /v1/info} has
 * the sections and field names of RESP {@code INFO}, so one vocabulary serves both. No setting is
 * copied wholesale, so {@code requirepass} cannot appear.
 */
final class InfoRoute {
  private final ServerContext server;

  InfoRoute(ServerContext server) {
    this.server = server;
  }

  /**
   * 200 while writes are accepted; 503 once a failed fsync has disabled them (restart to recover),
   * or while the disk is full (it clears by itself once space returns). Reads go on in both cases.
   */
  HttpReply health() {
    IOException failure = writeFailure();
    DiskFullException full = server.store().health().diskFull();
    Map<String, Object> document = new LinkedHashMap<>();
    if (failure != null) {
      document.put("status", "writes_disabled");
      document.put(
          "message",
          "writes are disabled since an fsync failed ("
              + failure.getMessage()
              + "); reads go on; restart the server once the disk is healthy");
    } else if (full != null) {
      document.put("status", "disk_full");
      document.put(
          "message",
          "writes are refused for lack of disk space ("
              + full.getMessage()
              + "); reads go on; writes resume by themselves once space is freed");
    } else {
      document.put("status", "ok");
      return HttpReply.json(200, JsonEncoder.encode(document));
    }
    return HttpReply.json(503, JsonEncoder.encode(document));
  }

  HttpReply info() {
    CellarStats engine = server.store().stats();
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("server", serverSection());
    document.put("clients", clients());
    document.put("memory", memory(engine));
    document.put("persistence", persistence(engine));
    document.put("stats", stats());
    document.put("keyspace", Map.of("keys", engine.keys()));
    return HttpReply.json(200, JsonEncoder.encode(document));
  }

  private Map<String, Object> serverSection() {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("cellar_version", CellarVersion.current());
    s.put("process_id", ProcessHandle.current().pid());
    s.put("tcp_port", server.control().port());
    s.put("tls_port", server.control().tlsPort());
    s.put("http_port", server.control().httpPort());
    s.put("https_port", server.control().httpsPort());
    s.put("transport", server.control().transport());
    s.put("io_threads", server.config().threads());
    s.put("uptime_in_seconds", (System.currentTimeMillis() - server.startMillis()) / 1000);
    return s;
  }

  private Map<String, Object> clients() {
    return clients(server);
  }

  /** The clients section, shared with {@link StatsRoute}. */
  static Map<String, Object> clients(ServerContext server) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("connected_clients", server.clients().count());
    s.put("maxclients", server.config().maxClients());
    return s;
  }

  private Map<String, Object> memory(CellarStats engine) {
    ServerConfig config = server.config();
    MemoryUsage heap = ProcessMemory.heap();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("used_memory", server.memory().used());
    s.put("used_memory_rss", ProcessMemory.residentBytes());
    s.put("used_memory_offheap_index", engine.indexBytes());
    s.put("used_memory_heap", heap.getUsed());
    s.put("used_memory_heap_committed", heap.getCommitted());
    s.put("maxmemory", config.maxMemory());
    s.put(
        "maxmemory_policy",
        config.evictionPolicy().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    return s;
  }

  private Map<String, Object> persistence(CellarStats engine) {
    IOException failure = writeFailure();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("appendfsync", server.config().fsync().name().toLowerCase(Locale.ROOT));
    s.put("write_failure", failure == null ? null : failure.getMessage());
    CellarHealth health = server.store().health();
    DiskFullException full = health.diskFull();
    s.put("disk_full", full == null ? null : full.getMessage());
    s.put(
        "checkpoint_failure",
        health.checkpointFailure() == null ? null : health.checkpointFailure().getMessage());
    s.put(
        "compaction_failure",
        health.compactionFailure() == null ? null : health.compactionFailure().getMessage());
    s.put("log_bytes", engine.logBytes());
    s.put("garbage_bytes", engine.garbageBytes());
    s.put("segments", engine.segments());
    s.put("fsyncs", engine.fsyncs());
    s.put("fsync_seconds", engine.fsyncNanos() * 1e-9);
    s.put("checkpoints", engine.checkpoints());
    s.put("compactions", engine.compactions());
    s.put("compacted_bytes", engine.compactedBytes());
    return s;
  }

  private Map<String, Object> stats() {
    CommandStats c = server.stats();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("total_connections_received", c.connectionsReceived.sum());
    s.put("total_commands_processed", c.totalCommands());
    s.put("rejected_connections", c.connectionsRejected.sum());
    s.put("keyspace_hits", c.keyspaceHits.sum());
    s.put("keyspace_misses", c.keyspaceMisses.sum());
    s.put("evicted_keys", c.evictedKeys.sum());
    s.put("protocol_errors", c.protocolErrors.sum());
    return s;
  }

  private IOException writeFailure() {
    return server.store().health().writeFailure();
  }
}
