package dev.cellar.bench.cache;

import java.util.Arrays;

/**
 * The key-to-slot map every policy here shares, so that their throughput differs by their own
 * bookkeeping and not by their lookup: open addressing over two int arrays, linear probing,
 * Fibonacci hashing, backward-shift deletion (no tombstones, so a long run with as many removals as
 * inserts keeps its probe lengths). Sized once for a maximum number of entries at a load of at most
 * one half; keys and values are not negative ({@link #ABSENT} marks a free slot and a missing key).
 */
final class IntIndex {
  static final int ABSENT = -1;

  private final int[] keys;
  private final int[] values;
  private final int mask;
  private final int shift;
  private final int maxEntries;
  private int size;

  IntIndex(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("index for " + maxEntries + " entries: give at least 1");
    }
    int slots = Integer.highestOneBit(Math.max(2, maxEntries) * 2 - 1) << 1;
    this.keys = new int[slots];
    this.values = new int[slots];
    Arrays.fill(keys, ABSENT);
    this.mask = slots - 1;
    this.shift = 32 - Integer.numberOfTrailingZeros(slots);
    this.maxEntries = maxEntries;
  }

  int size() {
    return size;
  }

  /**
   * The internal slot holding {@code key}, or {@link #ABSENT}; valid until the next put or remove.
   */
  int slotOf(int key) {
    for (int i = home(key); ; i = (i + 1) & mask) {
      int k = keys[i];
      if (k == key) {
        return i;
      }
      if (k == ABSENT) {
        return ABSENT;
      }
    }
  }

  int valueAt(int slot) {
    return values[slot];
  }

  void setValueAt(int slot, int value) {
    values[slot] = value;
  }

  int get(int key) {
    int slot = slotOf(key);
    return slot == ABSENT ? ABSENT : values[slot];
  }

  void put(int key, int value) {
    int i = home(key);
    while (keys[i] != ABSENT && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (keys[i] == ABSENT) {
      if (size == maxEntries) {
        throw new IllegalStateException(
            "index full at " + maxEntries + " entries adding key " + key + ": size it larger");
      }
      keys[i] = key;
      size++;
    }
    values[i] = value;
  }

  /** Removes {@code key}; returns its value or {@link #ABSENT}. */
  int remove(int key) {
    int hole = slotOf(key);
    if (hole == ABSENT) {
      return ABSENT;
    }
    int removed = values[hole];
    // Backward shift: pull later members of the probe run into the hole when the hole lies on
    // their path from their home slot, so lookups never need a tombstone.
    for (int i = (hole + 1) & mask; keys[i] != ABSENT; i = (i + 1) & mask) {
      int home = home(keys[i]);
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        keys[hole] = keys[i];
        values[hole] = values[i];
        hole = i;
      }
    }
    keys[hole] = ABSENT;
    size--;
    return removed;
  }

  private int home(int key) {
    return (key * 0x9E3779B9) >>> shift;
  }
}
