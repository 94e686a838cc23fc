package dev.cellar.bench.cache;

/**
 * S3-FIFO's ghost queue: the keys (no data) of the last entries evicted from the small queue, at
 * most {@code capacity} of them, oldest forgotten first. A key found here on a miss is admitted
 * straight to the main queue and leaves the ghost.
 *
 * <p>Leaving from the middle is done lazily: each key in the ring carries the sequence number it
 * was added with, and the index holds the number of its live copy, so a ring entry whose number is
 * no longer the index's is skipped when it reaches the tail. Only live keys count towards the
 * capacity, so the ghost remembers exactly the last {@code capacity} evictions still absent from
 * the cache.
 */
final class GhostFifo {
  private final int capacity;
  private final IntIndex sequenceByKey;
  private final IntRing keys;
  private final IntRing sequences;
  private int nextSequence;

  GhostFifo(int capacity) {
    this.capacity = Math.max(1, capacity);
    this.sequenceByKey = new IntIndex(this.capacity + 1);
    this.keys = new IntRing(this.capacity);
    this.sequences = new IntRing(this.capacity);
  }

  int size() {
    return sequenceByKey.size();
  }

  void add(int key) {
    int sequence = nextSequence++;
    sequenceByKey.put(key, sequence);
    keys.add(key);
    sequences.add(sequence);
    while (sequenceByKey.size() > capacity || (!keys.isEmpty() && isStale(keys.peekOldest()))) {
      int oldest = keys.pollOldest();
      int seq = sequences.pollOldest();
      if (sequenceByKey.get(oldest) == seq) {
        sequenceByKey.remove(oldest);
      }
    }
  }

  /** Removes {@code key} if the ghost holds it; returns whether it did. */
  boolean remove(int key) {
    return sequenceByKey.remove(key) != IntIndex.ABSENT;
  }

  private boolean isStale(int key) {
    return sequenceByKey.get(key) != sequences.peekOldest();
  }
}
