package dev.cellar.bench.cache;

/**
 * S3-FIFO (Yang, Zhang, Qiu, Yue and Vinayak, "FIFO queues are all you need for cache eviction",
 * SOSP 2023): three FIFO queues. New keys enter a small queue (a tenth of the capacity); a ghost
 * queue remembers the keys evicted from it, as many as the main queue holds; the main queue holds
 * the rest. Each entry has a two-bit counter of its hits, capped at 3.
 *
 * <ul>
 *   <li>Hit: the counter goes up by one (if below 3). Nothing moves.
 *   <li>Miss: while the cache is full, evict; then admit the key to the main queue if the ghost
 *       remembers it (it was evicted from the small queue recently and is back), else to the small
 *       queue, its counter at 0.
 *   <li>Evict: from the small queue while it holds at least its tenth, else from the main queue.
 *   <li>Small queue's tail: an entry asked for again while in the small queue moves to the main
 *       queue (counter reset; the main queue evicts if that overfills it) and the next tail is
 *       examined; one that was not is evicted and its key goes to the ghost. This is the paper's
 *       "quick demotion": most keys of a skewed trace are asked for once, and they leave after a
 *       tenth of the cache's turnover without disturbing the main queue. Moving on one hit is a
 *       migration threshold of one, as in the authors' illustration of the algorithm.
 *   <li>Main queue's tail: an entry with a counter above 0 is put back at the head with its counter
 *       one lower; the first with 0 is evicted (CLOCK with a 2-bit counter, "lazy promotion").
 * </ul>
 *
 * <p>The queues only add at the head and take from the tail, so they are rings of keys; the counter
 * and the queue an entry is in live in the index's value. A hit writes only when the counter is
 * below 3, so an entry asked for often writes nothing.
 */
final class S3FifoPolicy implements CachePolicy {
  private static final int COUNTER = 0b011;
  private static final int MAX_COUNT = 3;
  private static final int IN_MAIN = 0b100;

  private final int capacity;
  private final int smallTarget;
  private final int mainCapacity;
  private final IntIndex index;
  private final IntRing small;
  private final IntRing main;
  private final GhostFifo ghost;
  private long hitsThatWrote;

  S3FifoPolicy(int capacity) {
    this.capacity = PolicyKind.checkCapacity(capacity);
    this.smallTarget = Math.max(1, capacity / 10);
    this.mainCapacity = Math.max(1, capacity - smallTarget);
    this.index = new IntIndex(capacity);
    this.small = new IntRing(smallTarget);
    this.main = new IntRing(mainCapacity);
    this.ghost = new GhostFifo(mainCapacity);
  }

  @Override
  public boolean access(int key) {
    int slot = index.slotOf(key);
    if (slot != IntIndex.ABSENT) {
      int value = index.valueAt(slot);
      if ((value & COUNTER) < MAX_COUNT) {
        index.setValueAt(slot, value + 1);
        hitsThatWrote++;
      }
      return true;
    }
    while (size() >= capacity) {
      if (small.size() >= smallTarget) {
        evictSmall();
      } else {
        evictMain();
      }
    }
    if (ghost.remove(key)) {
      main.add(key);
      index.put(key, IN_MAIN);
    } else {
      small.add(key);
      index.put(key, 0);
    }
    return false;
  }

  private void evictSmall() {
    while (!small.isEmpty()) {
      int key = small.pollOldest();
      int slot = index.slotOf(key);
      if ((index.valueAt(slot) & COUNTER) > 0) {
        index.setValueAt(slot, IN_MAIN);
        main.add(key);
        while (main.size() > mainCapacity) {
          evictMain();
        }
      } else {
        index.remove(key);
        ghost.add(key);
        return;
      }
    }
  }

  private void evictMain() {
    while (!main.isEmpty()) {
      int key = main.pollOldest();
      int slot = index.slotOf(key);
      int value = index.valueAt(slot);
      if ((value & COUNTER) > 0) {
        index.setValueAt(slot, value - 1);
        main.add(key);
      } else {
        index.remove(key);
        return;
      }
    }
  }

  /** Entries in the small queue, for tests. */
  int smallSize() {
    return small.size();
  }

  /** Entries in the main queue, for tests. */
  int mainSize() {
    return main.size();
  }

  /** Keys the ghost remembers, for tests. */
  int ghostSize() {
    return ghost.size();
  }

  @Override
  public boolean contains(int key) {
    return index.get(key) != IntIndex.ABSENT;
  }

  @Override
  public int size() {
    return small.size() + main.size();
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public long hitsThatWrote() {
    return hitsThatWrote;
  }
}
