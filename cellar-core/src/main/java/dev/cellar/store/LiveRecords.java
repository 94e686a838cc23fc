package dev.cellar.store;

import dev.cellar.index.IndexSlotDescriptor;
import dev.cellar.log.LogLocation;
import dev.cellar.log.Segment;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Which records of a compaction pass's victims the index pointed at when the pass began: one bit
 * per 8-byte granule of each victim, set from one walk over every shard's index. The pass steps
 * over the records without a bit, without their CRC, hash or index lookup, which were most of the
 * cost of the dead majority of a victim.
 *
 * <p>Why a walk of the index per pass rather than marks made by the writers: an overwrite used to
 * mark its old record dead in a per-segment bitmap, and that bitmap's word was a cache miss of its
 * own on the request path (24% of a pinned event loop's samples at SET depth 16, the largest single
 * item). The walk reads the index in order, which the hardware prefetcher covers: a few
 * milliseconds a pass for a million keys, on the compaction thread.
 *
 * <p>Why a bit may be trusted when missing: victims are sealed, so none of their records becomes
 * current after the pass began (only the pass itself moves keys, and it builds this first). A
 * record current throughout the walk is seen, because {@link dev.cellar.index.HashIndex#scan} loses
 * no entry that stays in the index while it runs, and each piece is read under a validated
 * optimistic stamp or the read lock. A record that stops being current during the walk may or may
 * not get its bit; an extra bit only costs the pass an index check ({@code Compactor.currentNow}),
 * never a copy of a dead record.
 */
final class LiveRecords implements AutoCloseable {
  /** Fingerprint ranges a shard's index is walked in: each piece is a few dozen entries. */
  private static final int PIECES = 1024;

  private static final int OPTIMISTIC_ATTEMPTS = 4;

  private final Arena arena = Arena.ofConfined();
  private final MemorySegment[] bySlot;

  private LiveRecords(int slots) {
    this.bySlot = new MemorySegment[slots];
  }

  /** Walks every shard's index and sets the bit of each victim record it points at. */
  static LiveRecords of(List<Segment> victims, Shard[] shards) {
    int maxSlot = 0;
    for (Segment v : victims) {
      maxSlot = Math.max(maxSlot, v.slot());
    }
    LiveRecords live = new LiveRecords(maxSlot + 1);
    for (Segment v : victims) {
      long words = (v.end() / 8 + 63) / 64;
      live.bySlot[v.slot()] = live.arena.allocate(Math.max(1, words) * Long.BYTES, Long.BYTES);
    }
    long step = IndexSlotDescriptor.FINGERPRINT_END / PIECES;
    for (Shard shard : shards) {
      for (long from = 0; from < IndexSlotDescriptor.FINGERPRINT_END; from += step) {
        live.walk(shard, from, from + step);
      }
    }
    return live;
  }

  private void walk(Shard shard, long from, long to) {
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      long stamp = shard.lock.tryOptimisticRead();
      if (stamp == 0) {
        continue;
      }
      try {
        shard.index.scan(from, to, this::set);
        if (shard.lock.validate(stamp)) {
          return;
        }
      } catch (RuntimeException torn) {
        // a table freed or shifted under the walk: the stamp is invalid, walk the piece again
      }
    }
    long stamp = shard.lock.readLock();
    try {
      shard.index.scan(from, to, this::set);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  /** Sets the bit of {@code location} if it lies in a victim (a torn read may set a stray one). */
  private void set(long location) {
    int slot = LogLocation.slot(location);
    if (slot < 0 || slot >= bySlot.length) {
      return;
    }
    MemorySegment map = bySlot[slot];
    long granule = LogLocation.offset(location) >>> 3;
    long word = (granule >>> 6) * Long.BYTES;
    if (map != null && word < map.byteSize()) {
      map.set(ValueLayout.JAVA_LONG, word, map.get(ValueLayout.JAVA_LONG, word) | 1L << granule);
    }
  }

  /** Whether the index pointed at the record at {@code offset} of {@code victim} (see above). */
  boolean pointedAt(Segment victim, long offset) {
    MemorySegment map = bySlot[victim.slot()];
    long granule = offset >>> 3;
    return (map.get(ValueLayout.JAVA_LONG, (granule >>> 6) * Long.BYTES) & 1L << granule) != 0;
  }

  @Override
  public void close() {
    arena.close();
  }
}
