package dev.cellar.bench.cache;

/**
 * SIEVE (Zhang, Yang, Yue, Vigfusson and Rashmi, "SIEVE is Simpler than LRU: an Efficient Turn-Key
 * Eviction Algorithm for Web Caches", NSDI 2024): one FIFO queue, new entries at the head, one
 * visited bit per entry and a hand that persists between evictions. A hit sets the bit. To evict,
 * the hand starts where it stopped (at the tail the first time) and walks towards the head,
 * clearing set bits, until it finds a clear one; that entry is removed and the hand stays at its
 * newer neighbour, wrapping to the tail when it passes the head.
 *
 * <p>Unlike CLOCK, survivors keep their place and new entries go to the head, behind the hand, so a
 * new entry is examined only after every older one: the paper's "quick demotion" of entries the
 * hand finds unvisited and "lazy promotion" of the rest. The queue needs removal from the middle,
 * hence the doubly linked list over slot arrays. A hit writes only when the bit was clear.
 */
final class SievePolicy implements CachePolicy {
  private static final int NONE = -1;

  private final int capacity;
  private final IntIndex index;
  private final int[] keys;
  private final int[] newer;
  private final int[] older;
  private final boolean[] visited;
  private int head = NONE;
  private int tail = NONE;
  private int hand = NONE;
  private int size;
  private long hitsThatWrote;

  SievePolicy(int capacity) {
    this.capacity = PolicyKind.checkCapacity(capacity);
    this.index = new IntIndex(capacity);
    this.keys = new int[capacity];
    this.newer = new int[capacity];
    this.older = new int[capacity];
    this.visited = new boolean[capacity];
  }

  @Override
  public boolean access(int key) {
    int slot = index.get(key);
    if (slot != IntIndex.ABSENT) {
      if (!visited[slot]) {
        visited[slot] = true;
        hitsThatWrote++;
      }
      return true;
    }
    if (size < capacity) {
      slot = size++;
    } else {
      slot = evict();
    }
    keys[slot] = key;
    visited[slot] = false;
    index.put(key, slot);
    pushHead(slot);
    return false;
  }

  /** Runs the hand to an unvisited entry, removes it, and returns its free slot. */
  private int evict() {
    int at = hand == NONE ? tail : hand;
    while (visited[at]) {
      visited[at] = false;
      at = newer[at] == NONE ? tail : newer[at];
    }
    hand = newer[at];
    unlink(at);
    index.remove(keys[at]);
    return at;
  }

  private void unlink(int slot) {
    int n = newer[slot];
    int o = older[slot];
    if (n == NONE) {
      head = o;
    } else {
      older[n] = o;
    }
    if (o == NONE) {
      tail = n;
    } else {
      newer[o] = n;
    }
  }

  private void pushHead(int slot) {
    newer[slot] = NONE;
    older[slot] = head;
    if (head == NONE) {
      tail = slot;
    } else {
      newer[head] = slot;
    }
    head = slot;
  }

  @Override
  public boolean contains(int key) {
    return index.get(key) != IntIndex.ABSENT;
  }

  @Override
  public int size() {
    return size;
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
