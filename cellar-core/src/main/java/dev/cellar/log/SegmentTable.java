package dev.cellar.log;

import java.util.ArrayList;
import java.util.List;

/**
 * The live segments, by slot. Reads are a plain array read through a volatile reference; changes
 * (roll, compaction, deletion) copy the array, which is rare and cheap at 4096 slots.
 *
 * <p>Slots are reused after a segment is removed, which keeps index locations at 12 bits of slot
 * however many segments a store has had over its life.
 */
public final class SegmentTable {
  private volatile Segment[] slots = new Segment[LogLocation.MAX_SLOTS];

  /** The read cache every segment placed here reads through once sealed; null: none. */
  private volatile dev.cellar.cache.BlockCache readCache;

  private volatile dev.cellar.io.FileIO readCacheIo;

  /**
   * Makes every segment placed from now on read through {@code cache} once sealed, with the direct
   * reads of {@code io}.
   */
  public void readCache(dev.cellar.cache.BlockCache cache, dev.cellar.io.FileIO io) {
    this.readCacheIo = io;
    this.readCache = cache;
  }

  /** The segment in {@code slot}, or null. */
  public Segment get(int slot) {
    return slots[slot];
  }

  /** Places {@code segment} in a free slot and returns it. */
  public synchronized int add(Segment segment) {
    Segment[] current = slots;
    for (int i = 0; i < current.length; i++) {
      if (current[i] == null) {
        place(segment, i);
        return i;
      }
    }
    throw new IllegalStateException(
        "more than " + LogLocation.MAX_SLOTS + " live segments; raise segmentBytes or compact");
  }

  /** Places {@code segment} in the given slot (restoring a checkpoint's table). */
  public synchronized void place(Segment segment, int slot) {
    Segment[] copy = slots.clone();
    if (copy[slot] != null && copy[slot] != segment) {
      throw new IllegalStateException("slot " + slot + " already holds " + copy[slot]);
    }
    copy[slot] = segment;
    segment.slot(slot);
    segment.readCache(readCache, readCacheIo);
    slots = copy;
  }

  /** Puts {@code replacement} in {@code current}'s slot (same file, new mapping). */
  public synchronized void replace(Segment current, Segment replacement) {
    Segment[] copy = slots.clone();
    copy[current.slot()] = replacement;
    replacement.slot(current.slot());
    replacement.readCache(readCache, readCacheIo);
    slots = copy;
  }

  public synchronized void remove(Segment segment) {
    Segment[] copy = slots.clone();
    if (segment.slot() >= 0 && copy[segment.slot()] == segment) {
      copy[segment.slot()] = null;
      slots = copy;
    }
  }

  /** Every live segment, ordered by id. */
  public List<Segment> all() {
    List<Segment> out = new ArrayList<>();
    for (Segment s : slots) {
      if (s != null) {
        out.add(s);
      }
    }
    out.sort((a, b) -> Long.compare(a.id(), b.id()));
    return out;
  }

  public int count() {
    int n = 0;
    for (Segment s : slots) {
      if (s != null) {
        n++;
      }
    }
    return n;
  }
}
