package dev.cellar;

import dev.cellar.index.HashIndex;
import dev.cellar.log.RecordDescriptor;

/**
 * Counters and sizes at one moment.
 *
 * @param keys keys in the index (expired but unreclaimed ones included)
 * @param indexBytes off-heap bytes held by the index tables
 * @param logBytes bytes of live segment files on disk
 * @param garbageBytes bytes of records known to be dead (overwritten, deleted, expired)
 * @param segments number of live segment files
 * @param puts puts since open
 * @param deletes deletes that removed a key, since open (reads are not counted: a shared counter
 *     would be a cache line every reading core writes, and reads are meant to scale with cores)
 * @param fsyncs fsync calls since open
 * @param fsyncNanos time spent in those fsync calls, in nanoseconds (the gathering wait before an
 *     fsync excluded), so {@code fsyncNanos / fsyncs} over an interval is the mean fsync latency
 * @param compactions compaction passes since open that rewrote at least one segment
 * @param compactedBytes bytes reclaimed by compaction since open
 * @param checkpoints checkpoints written since open
 * @param mappedBytes bytes of log mapped into the address space. A segment written since open stays
 *     mapped at its full capacity (mapped once, filled as it grows; past its end the mapping is
 *     backed by nothing), one found at open at its length. The part resident in memory is the
 *     kernel's page cache, counted in the process's RSS
 * @param expiredKeys keys taken out of the index because their expiry had passed, since open. A key
 *     is removed when compaction rewrites the segment holding its record (reads skip an expired key
 *     before that, and {@code keys} still counts it), so this grows with compaction, not at the
 *     moment a key expires
 * @param readCacheBytes the capacity of the read cache of a store that reads with {@code io direct}
 *     ({@link CellarOptions#readCacheBytes}); 0 in {@code io buffered}, which has none
 * @param readCacheHits reads of a read-cache block that found it cached, since open
 * @param readCacheMisses reads that had to read the block from the device, since open (those read
 *     ahead of their readers included)
 * @param readCacheReadAhead blocks a batch read ahead of its reads, all at once, since open: the
 *     misses the device served in parallel
 */
public record CellarStats(
    long keys,
    long indexBytes,
    long logBytes,
    long garbageBytes,
    int segments,
    long puts,
    long deletes,
    long fsyncs,
    long fsyncNanos,
    long compactions,
    long compactedBytes,
    long checkpoints,
    long mappedBytes,
    long expiredKeys,
    long readCacheBytes,
    long readCacheHits,
    long readCacheMisses,
    long readCacheReadAhead) {

  /**
   * The bytes one key costs this store, as of these counters: its log record (framing, key, value
   * and expiry, the sequence number sized from the writes counted so far) plus its share of the
   * off-heap index, the index's bytes over its keys but at most what an entry costs at the lowest
   * load a table reaches by growth (about 21 bytes): a small store's index is mostly its
   * preallocated minimum, which no one key causes. What a server reports as a key's memory usage.
   */
  public long keyFootprint(long keyLength, long valueLength, boolean expires) {
    long indexShare = Math.min(HashIndex.MAX_BYTES_PER_GROWN_ENTRY, indexBytes / Math.max(1, keys));
    return RecordDescriptor.length(keyLength, valueLength, puts + deletes, expires) + indexShare;
  }
}
