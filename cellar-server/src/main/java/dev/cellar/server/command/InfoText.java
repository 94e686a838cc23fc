package dev.cellar.server.command;

import dev.cellar.CellarHealth;
import dev.cellar.CellarStats;
import dev.cellar.CellarVersion;
import dev.cellar.DiskFullException;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

/** The text of {@code INFO}: Redis's sections and field names, plus Cellar's own fields. */
final class InfoText {
  private InfoText() {}

  private static final List<String> DEFAULT =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "cpu",
          "errorstats",
          "keyspace");

  static String render(ServerContext server, List<String> requested) {
    List<String> sections;
    if (requested.isEmpty() || requested.contains("default")) {
      sections = DEFAULT;
    } else if (requested.contains("all") || requested.contains("everything")) {
      sections = new java.util.ArrayList<>(DEFAULT);
      sections.add(sections.indexOf("errorstats"), "commandstats");
      sections.add(sections.indexOf("errorstats") + 1, "latencystats");
    } else {
      sections = requested;
    }
    StringBuilder b = new StringBuilder();
    CellarStats stats = server.databases().stats();
    for (String section : sections) {
      // Redis separates sections with an empty line; the last one ends without.
      int before = b.length();
      if (before > 0) {
        b.append("\r\n");
      }
      int start = b.length();
      switch (section) {
        case "server" -> server(server, b);
        case "clients" -> clients(server, b);
        case "memory" -> memory(server, stats, b);
        case "persistence" -> persistence(server, stats, b);
        case "stats" -> stats(server, stats, b);
        case "replication" -> b.append(REPLICATION);
        case "cpu" -> cpu(b);
        case "commandstats" -> commandStats(server, b);
        case "errorstats" -> errorStats(server, b);
        case "latencystats" -> latencyStats(server, b);
        case "keyspace" -> keyspace(server, b);
        default -> {}
      }
      if (b.length() == start) {
        b.setLength(before); // an unknown section adds nothing, not even the separator
      }
    }
    return b.toString();
  }

  private static void server(ServerContext server, StringBuilder b) {
    long uptime = (System.currentTimeMillis() - server.startMillis()) / 1000;
    b.append("# Server\r\n")
        .append("redis_version:")
        .append(ConnectionCommands.REDIS_COMPAT_VERSION)
        .append("\r\n")
        .append("cellar_version:")
        .append(CellarVersion.current())
        .append("\r\n")
        .append("redis_mode:standalone\r\n")
        .append("os:")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(' ')
        .append(System.getProperty("os.arch"))
        .append("\r\n")
        .append("arch_bits:64\r\n")
        .append("multiplexing_api:")
        .append(server.control().transport())
        .append("\r\n")
        .append("java_version:")
        .append(Runtime.version())
        .append("\r\n")
        .append("process_id:")
        .append(ProcessHandle.current().pid())
        .append("\r\n")
        .append("tcp_port:")
        .append(server.control().port())
        .append("\r\n")
        .append("tls_port:")
        .append(server.control().tlsPort())
        .append("\r\n")
        .append("http_port:")
        .append(server.control().httpPort())
        .append("\r\n")
        .append("https_port:")
        .append(server.control().httpsPort())
        .append("\r\n")
        .append("io_threads_active:")
        .append(server.config().threads())
        .append("\r\n")
        .append("uptime_in_seconds:")
        .append(uptime)
        .append("\r\n")
        .append("uptime_in_days:")
        .append(uptime / 86400)
        .append("\r\n")
        .append("dir:")
        .append(server.config().dir().toAbsolutePath())
        .append("\r\n");
  }

  private static void clients(ServerContext server, StringBuilder b) {
    b.append("# Clients\r\n")
        .append("connected_clients:")
        .append(server.clients().count())
        .append("\r\n")
        .append("maxclients:")
        .append(server.config().maxClients())
        .append("\r\n")
        .append("blocked_clients:")
        .append(server.blockedClients())
        .append("\r\n");
    long[] blockingKeys = server.blocked().blockingKeys();
    b.append("total_blocking_keys:")
        .append(blockingKeys[0])
        .append("\r\ntotal_blocking_keys_on_nokey:")
        .append(blockingKeys[1])
        .append("\r\n")
        .append("tracking_clients:")
        .append(server.tracking().clientCount())
        .append("\r\n")
        .append("clients_in_timeout_table:0\r\n");
  }

  private static void memory(ServerContext server, CellarStats stats, StringBuilder b) {
    long used = server.memory().used();
    long rss = dev.cellar.server.metrics.ProcessMemory.residentBytes();
    var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    b.append("# Memory\r\n")
        .append("used_memory:")
        .append(used)
        .append("\r\n")
        .append("used_memory_human:")
        .append(human(used))
        .append("\r\n")
        .append("used_memory_rss:")
        .append(rss)
        .append("\r\n")
        .append("used_memory_rss_human:")
        .append(human(rss))
        .append("\r\n")
        .append("used_memory_peak:")
        .append(server.sampler().peakMemory())
        .append("\r\n")
        .append("used_memory_peak_human:")
        .append(human(server.sampler().peakMemory()))
        .append("\r\n")
        .append("used_memory_startup:")
        .append(server.sampler().startupMemory())
        .append("\r\n")
        .append("used_memory_offheap_index:")
        .append(stats.indexBytes())
        .append("\r\n")
        .append("used_memory_log:")
        .append(stats.logBytes())
        .append("\r\n")
        .append("used_memory_heap:")
        .append(heap.getUsed())
        .append("\r\n")
        .append("used_memory_heap_committed:")
        .append(heap.getCommitted())
        .append("\r\n")
        .append("maxmemory:")
        .append(server.config().maxMemory())
        .append("\r\n")
        .append("maxmemory_human:")
        .append(human(server.config().maxMemory()))
        .append("\r\n")
        .append("maxmemory_policy:")
        .append(server.config().evictionPolicy().name().toLowerCase().replace('_', '-'))
        .append("\r\n")
        // Nothing here is freed lazily in Redis's sense, and no replication or AOF buffer is
        // left out of maxmemory's count (tools wait on these, as Redis's test suite does).
        .append("mem_not_counted_for_evict:0\r\n")
        .append("lazyfree_pending_objects:0\r\n")
        .append("mem_clients_normal:")
        .append(server.clientMemory().used())
        .append("\r\n")
        .append("maxmemory_clients:")
        .append(
            server.config().maxMemoryClients() == Long.MAX_VALUE
                ? 0
                : server.config().maxMemoryClients())
        .append("\r\n");
  }

  /**
   * Redis's status fields in Redis's meaning: {@code aof_last_write_status} is {@code err} while
   * writes are refused (a failed fsync, until restart; a full disk, until space returns), {@code
   * rdb_last_bgsave_status} reports the last checkpoint and {@code aof_last_bgrewrite_status} the
   * last compaction pass; the {@code cellar_*} fields say why.
   */
  private static void persistence(ServerContext server, CellarStats stats, StringBuilder b) {
    CellarHealth health = server.databases().health();
    IOException failure = health.writeFailure();
    DiskFullException full = health.diskFull();
    boolean checkpointFailed = health.checkpointFailure() != null;
    boolean compactionFailed = health.compactionFailure() != null;
    // In progress: what BGSAVE or BGREWRITEAOF started (maybe still waiting for the other to end),
    // or the engine's own background checkpoint or compaction.
    boolean checkpointing = server.control().checkpointRunning() || health.checkpointing();
    boolean compacting = server.control().compactionRunning() || health.compacting();
    b.append("# Persistence\r\n")
        .append("loading:0\r\n")
        .append("rdb_changes_since_last_save:")
        .append(server.changes().sinceSave())
        .append("\r\n")
        .append("rdb_last_bgsave_status:")
        .append(checkpointFailed || server.control().lastSaveFailure() != null ? "err" : "ok")
        .append("\r\n")
        .append("rdb_last_save_time:")
        .append(server.control().lastSaveEpochSeconds())
        .append("\r\n")
        .append("cellar_last_bgsave_error:")
        .append(
            server.control().lastSaveFailure() == null
                ? ""
                : oneLine(server.control().lastSaveFailure()))
        .append("\r\n")
        .append("cellar_encryption:")
        .append(server.config().encryptionKeyFile() == null ? "off" : "aes-256-gcm")
        .append("\r\n")
        .append("cellar_compression:")
        .append(server.config().compression().label())
        .append("\r\n")
        .append("cellar_io:")
        .append(server.config().io().label())
        .append("\r\n")
        .append("cellar_last_backup:")
        .append(server.control().lastBackup() == null ? "" : server.control().lastBackup())
        .append("\r\n")
        .append("aof_enabled:1\r\n")
        .append("rdb_bgsave_in_progress:")
        .append(checkpointing ? 1 : 0)
        .append("\r\n")
        .append("aof_rewrite_in_progress:")
        .append(compacting ? 1 : 0)
        .append("\r\n")
        .append("appendfsync:")
        .append(server.config().fsync().name().toLowerCase())
        .append("\r\n")
        .append("aof_last_bgrewrite_status:")
        .append(compactionFailed ? "err" : "ok")
        .append("\r\n")
        .append("aof_last_write_status:")
        .append(failure == null && full == null ? "ok" : "err")
        .append("\r\n")
        .append("cellar_write_failure:")
        .append(failure == null ? "" : oneLine(failure.getMessage()))
        .append("\r\n")
        .append("cellar_disk_full:")
        .append(full == null ? 0 : 1)
        .append("\r\n")
        .append("cellar_disk_full_error:")
        .append(full == null ? "" : oneLine(full.getMessage()))
        .append("\r\n")
        .append("cellar_log_bytes:")
        .append(stats.logBytes())
        .append("\r\n")
        .append("cellar_garbage_bytes:")
        .append(stats.garbageBytes())
        .append("\r\n")
        .append("cellar_segments:")
        .append(stats.segments())
        .append("\r\n")
        .append("cellar_fsyncs:")
        .append(stats.fsyncs())
        .append("\r\n")
        .append("cellar_checkpoints:")
        .append(stats.checkpoints())
        .append("\r\n")
        .append("cellar_compactions:")
        .append(stats.compactions())
        .append("\r\n")
        .append("cellar_compacted_bytes:")
        .append(stats.compactedBytes())
        .append("\r\n");
  }

  private static String oneLine(String text) {
    return String.valueOf(text).replace('\r', ' ').replace('\n', ' ');
  }

  private static void stats(ServerContext server, CellarStats stats, StringBuilder b) {
    CommandStats c = server.stats();
    b.append("# Stats\r\n")
        .append("total_connections_received:")
        .append(c.connectionsReceived.sum())
        .append("\r\n")
        .append("total_commands_processed:")
        .append(c.totalCommands())
        .append("\r\n")
        .append("instantaneous_ops_per_sec:")
        .append(server.sampler().opsPerSecond())
        .append("\r\n")
        .append("total_net_input_bytes:")
        .append(server.sampler().netInputBytes.sum())
        .append("\r\n")
        .append("total_net_output_bytes:")
        .append(server.sampler().netOutputBytes.sum())
        .append("\r\n")
        .append("instantaneous_input_kbps:")
        .append(String.format(java.util.Locale.ROOT, "%.2f", server.sampler().inputKbps()))
        .append("\r\n")
        .append("instantaneous_output_kbps:")
        .append(String.format(java.util.Locale.ROOT, "%.2f", server.sampler().outputKbps()))
        .append("\r\n")
        .append("rejected_connections:")
        .append(c.connectionsRejected.sum())
        .append("\r\n")
        .append("evicted_clients:")
        .append(server.clientMemory().evictions())
        .append("\r\n")
        .append("expired_keys:")
        .append(stats.expiredKeys())
        .append("\r\n")
        .append("evicted_keys:")
        .append(c.evictedKeys.sum())
        .append("\r\n")
        .append("keyspace_hits:")
        .append(c.keyspaceHits.sum())
        .append("\r\n")
        .append("keyspace_misses:")
        .append(c.keyspaceMisses.sum())
        .append("\r\n")
        .append("total_error_replies:")
        .append(c.errors.total())
        .append("\r\n")
        .append("tracking_total_keys:")
        .append(server.tracking().keyCount())
        .append("\r\ntracking_total_items:")
        .append(server.tracking().itemCount())
        .append("\r\ntracking_total_prefixes:")
        .append(server.tracking().prefixCount())
        .append("\r\n")
        .append("client_output_buffer_limit_disconnections:")
        .append(c.outputLimitDisconnects.sum())
        .append("\r\n")
        .append("protocol_errors:")
        .append(c.protocolErrors.sum())
        .append("\r\n")
        .append("cellar_collection_elements:")
        .append(server.databases().elementCount())
        .append("\r\n")
        .append("cellar_orphan_elements_removed:")
        .append(server.orphansRemoved())
        .append("\r\n")
        .append("cellar_read_cache_bytes:")
        .append(stats.readCacheBytes())
        .append("\r\n")
        .append("cellar_read_cache_hits:")
        .append(stats.readCacheHits())
        .append("\r\n")
        .append("cellar_read_cache_misses:")
        .append(stats.readCacheMisses())
        .append("\r\n")
        .append("cellar_read_cache_read_ahead:")
        .append(stats.readCacheReadAhead())
        .append("\r\n")
        .append("pubsub_channels:")
        .append(server.pubsub().channelCount())
        .append("\r\n")
        .append("pubsub_patterns:")
        .append(server.pubsub().patternCount())
        .append("\r\n")
        .append("pubsubshard_channels:")
        .append(server.pubsub().shardChannelCount())
        .append("\r\n")
        .append("latest_fork_usec:0\r\n")
        // Cellar never forks, and MIGRATE keeps no connection between calls (MigrateCommand).
        .append("total_forks:0\r\n")
        .append("migrate_cached_sockets:0\r\n");
  }

  /**
   * Redis's replication section for a primary with no replicas (Cellar replicates nothing): the
   * fields monitoring tools read, with nothing replicated. The id is random per process, as Redis's
   * is at start.
   */
  private static final String REPLICATION =
      "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n"
          + "master_replid:"
          + java.util.HexFormat.of().formatHex(randomBytes(20))
          + "\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n"
          + "master_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\n"
          + "repl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:0\r\n"
          + "repl_backlog_histlen:0\r\n";

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new java.security.SecureRandom().nextBytes(b);
    return b;
  }

  /**
   * Redis's CPU section: the process's system and user CPU seconds and its children's (from {@code
   * /proc/self/stat}, in Linux's fixed 100 ticks a second; elsewhere all of it counts as user
   * time), and, for Redis's main thread, the event loops that run commands here.
   */
  private static void cpu(StringBuilder b) {
    double[] process = ProcessCpu.read();
    double[] loops = ProcessCpu.eventLoops();
    b.append("# CPU\r\n");
    seconds(b, "used_cpu_sys", process[0]);
    seconds(b, "used_cpu_user", process[1]);
    seconds(b, "used_cpu_sys_children", process[2]);
    seconds(b, "used_cpu_user_children", process[3]);
    seconds(b, "used_cpu_sys_main_thread", loops[0]);
    seconds(b, "used_cpu_user_main_thread", loops[1]);
  }

  private static void seconds(StringBuilder b, String field, double seconds) {
    b.append(field)
        .append(':')
        .append(String.format(java.util.Locale.ROOT, "%.6f", seconds))
        .append("\r\n");
  }

  /** Redis's {@code errorstat_<code>:count=n}, by code. */
  private static void errorStats(ServerContext server, StringBuilder b) {
    b.append("# Errorstats\r\n");
    server
        .stats()
        .errors
        .byCode()
        .forEach(
            (code, count) ->
                b.append("errorstat_").append(code).append(":count=").append(count).append("\r\n"));
  }

  /**
   * Redis's {@code latency_percentiles_usec_<command>:p50=1.003,...}: each command's percentiles
   * from {@code latency-tracking-info-percentiles}, in microseconds; none while tracking is off.
   */
  private static void latencyStats(ServerContext server, StringBuilder b) {
    b.append("# Latencystats\r\n");
    if (!server.config().latencyTracking()) {
      return;
    }
    double[] percentiles = server.config().latencyPercentiles();
    for (Map.Entry<String, long[]> e : server.stats().latencies().entrySet()) {
      b.append("latency_percentiles_usec_").append(e.getKey()).append(':');
      for (int i = 0; i < percentiles.length; i++) {
        double micros = LatencyHistogram.valueAt(e.getValue(), percentiles[i]) / 1000.0;
        b.append(i == 0 ? "" : ",")
            .append('p')
            .append(ServerConfig.percentileName(percentiles[i]))
            .append('=')
            .append(String.format(java.util.Locale.ROOT, "%.3f", micros));
      }
      b.append("\r\n");
    }
  }

  private static void commandStats(ServerContext server, StringBuilder b) {
    b.append("# Commandstats\r\n");
    for (Map.Entry<String, CommandStats.Counters> e : server.stats().all().entrySet()) {
      long calls = e.getValue().calls.sum();
      long usec = e.getValue().nanos.sum() / 1000;
      b.append("cmdstat_")
          .append(e.getKey())
          .append(":calls=")
          .append(calls)
          .append(",usec=")
          .append(usec)
          .append(",usec_per_call=")
          .append(
              String.format(
                  java.util.Locale.ROOT, "%.2f", calls == 0 ? 0.0 : (double) usec / calls))
          .append(",rejected_calls=")
          .append(e.getValue().rejected.sum())
          .append(",failed_calls=")
          .append(e.getValue().failed.sum())
          .append("\r\n");
    }
  }

  /**
   * One line per database that holds keys. {@code expires} and {@code avg_ttl} are estimated by
   * sampling (see {@link ExpirySampler}).
   */
  private static void keyspace(ServerContext server, StringBuilder b) {
    b.append("# Keyspace\r\n");
    for (int index : server.databases().openIndexes()) {
      dev.cellar.server.db.Database db = server.databases().opened(index);
      long keys = db == null ? 0 : db.store().size();
      if (keys > 0) {
        ExpirySampler expiries = server.expiries(index);
        b.append("db")
            .append(index)
            .append(":keys=")
            .append(keys)
            .append(",expires=")
            .append(expiries.expires(keys))
            .append(",avg_ttl=")
            .append(expiries.averageTtlMillis())
            .append("\r\n");
      }
    }
  }

  static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    String units = "KMGTPE";
    int u = -1;
    double v = bytes;
    while (v >= 1024 && u < units.length() - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.2f%c", v, units.charAt(u));
  }
}
