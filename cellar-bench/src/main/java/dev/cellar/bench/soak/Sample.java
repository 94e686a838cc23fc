package dev.cellar.bench.soak;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reading of the server during the soak.
 *
 * @param seconds since the load began
 * @param vmRss resident set ({@code VmRSS}): heap, native memory, and the log pages mapped in
 * @param rssAnon the anonymous part of it ({@code RssAnon}): heap and native allocations, where a
 *     leak would show
 * @param heapUsed Java heap in use when read (INFO {@code used_memory_heap}), garbage included
 * @param heapLive Java heap in use right after a full collection this sample asked for; -1 when it
 *     asked for none
 * @param usedMemory what counts against maxmemory (INFO {@code used_memory}): the off-heap index
 *     and live log bytes
 * @param logBytes log segment bytes on disk (INFO {@code cellar_log_bytes})
 * @param compactions compaction passes so far (INFO {@code cellar_compactions})
 * @param keys keys in the store
 * @param operations operations the clients completed so far
 * @param opsPerSecond operations per second since the previous sample
 * @param errors error replies, wrong replies and lost connections so far
 */
record Sample(
    long seconds,
    long vmRss,
    long rssAnon,
    long heapUsed,
    long heapLive,
    long usedMemory,
    long logBytes,
    long compactions,
    long keys,
    long operations,
    double opsPerSecond,
    long errors) {

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("s", seconds);
    m.put("vm_rss_bytes", vmRss);
    m.put("rss_anon_bytes", rssAnon);
    m.put("heap_used_bytes", heapUsed);
    m.put("heap_live_bytes", heapLive < 0 ? null : heapLive);
    m.put("used_memory_bytes", usedMemory);
    m.put("log_bytes", logBytes);
    m.put("compactions", compactions);
    m.put("keys", keys);
    m.put("operations", operations);
    m.put("ops_per_s", Math.round(opsPerSecond));
    m.put("errors", errors);
    return m;
  }
}
