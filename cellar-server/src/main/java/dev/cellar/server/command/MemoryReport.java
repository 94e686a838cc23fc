package dev.cellar.server.command;

import dev.cellar.CellarStats;
import dev.cellar.server.resp.ReplyWriter;
import java.util.Locale;

/**
 * {@code MEMORY STATS} and {@code MEMORY DOCTOR}: Redis's field names where the thing they name
 * exists here. Cellar's {@code used_memory} ({@code total.allocated}) is the off-heap index plus
 * the live bytes of the log; the index is the overhead (Redis's main hash table), the live log the
 * data set. Client buffers are on the Java heap and outside {@code used_memory}, as in INFO, and
 * are shown as {@code clients.normal}. Redis's allocator fields have no counterpart and are left
 * out rather than invented; {@code fragmentation} compares the process's resident memory with
 * {@code used_memory}, as Redis's does.
 */
final class MemoryReport {
  private MemoryReport() {}

  static void stats(ServerContext server, ReplyWriter out) {
    CellarStats stats = server.store().stats();
    long total = server.memory().used();
    long peak = server.sampler().peakMemory();
    long startup = server.sampler().startupMemory();
    long clients = server.clientMemory().used();
    long index = stats.indexBytes();
    long dataset = Math.max(0, total - index);
    long rss = dev.cellar.server.metrics.ProcessMemory.residentBytes();
    long keys = stats.keys();
    out.map(21);
    field(out, "peak.allocated", peak);
    field(out, "total.allocated", total);
    field(out, "startup.allocated", startup);
    field(out, "replication.backlog", 0);
    field(out, "clients.slaves", 0);
    field(out, "clients.normal", clients);
    field(out, "cluster.links", 0);
    field(out, "aof.buffer", 0);
    field(out, "lua.caches", 0);
    field(out, "functions.caches", 0);
    out.bulk("db.0");
    out.map(2);
    field(out, "overhead.hashtable.main", index);
    field(out, "overhead.hashtable.expires", 0);
    field(out, "overhead.total", index + clients);
    field(out, "keys.count", keys);
    field(out, "keys.bytes-per-key", keys == 0 ? 0 : Math.max(0, total - startup) / keys);
    field(out, "dataset.bytes", dataset);
    ratio(out, "dataset.percentage", total == 0 ? 0 : dataset * 100.0 / total);
    ratio(out, "peak.percentage", peak == 0 ? 0 : total * 100.0 / peak);
    ratio(out, "fragmentation", total == 0 ? 0 : (double) rss / total);
    field(out, "fragmentation.bytes", rss - total);
    field(out, "cellar.log.bytes", stats.logBytes());
    field(out, "cellar.log.garbage.bytes", stats.garbageBytes());
  }

  private static void field(ReplyWriter out, String name, long value) {
    out.bulk(name);
    out.integer(value);
  }

  private static void ratio(ReplyWriter out, String name, double value) {
    out.bulk(name);
    out.doubleValue(String.format(Locale.ROOT, "%.6f", value));
  }

  static String doctor(ServerContext server) {
    CellarStats stats = server.store().stats();
    long live = Math.max(1, stats.logBytes() - stats.garbageBytes());
    if (stats.keys() == 0) {
      return "Hi Sam, this instance is empty, so I have nothing to report.\n";
    }
    if (stats.garbageBytes() > live) {
      return "Hi Sam, the log holds more garbage ("
          + InfoText.human(stats.garbageBytes())
          + ") than live data ("
          + InfoText.human(live)
          + "): compaction is behind. BGREWRITEAOF starts a pass now; a lower"
          + " auto-aof-rewrite-percentage starts them earlier.\n";
    }
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n";
  }
}
