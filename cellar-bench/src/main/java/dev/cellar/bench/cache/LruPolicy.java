package dev.cellar.bench.cache;

/**
 * Least recently used, the baseline: a doubly linked list in recency order over slot arrays, most
 * recent at the head, the victim at the tail. Every hit on an entry that is not already the head
 * unlinks and relinks it (up to six pointer writes), which is why a concurrent LRU takes a lock or
 * buffers its hits; {@link #hitsThatWrote()} counts those relinks.
 *
 * <p>Written over arrays rather than as a {@code LinkedHashMap} in access order so that its cost
 * per request is comparable with the other policies, which share {@link IntIndex}; its decisions
 * are the same, which {@code CachePolicyTest} checks against a {@code LinkedHashMap}.
 */
final class LruPolicy implements CachePolicy {
  private static final int NONE = -1;

  private final int capacity;
  private final IntIndex index;
  private final int[] keys;
  private final int[] newer;
  private final int[] older;
  private int head = NONE;
  private int tail = NONE;
  private int size;
  private long hitsThatWrote;

  LruPolicy(int capacity) {
    this.capacity = PolicyKind.checkCapacity(capacity);
    this.index = new IntIndex(capacity);
    this.keys = new int[capacity];
    this.newer = new int[capacity];
    this.older = new int[capacity];
  }

  @Override
  public boolean access(int key) {
    int slot = index.get(key);
    if (slot != IntIndex.ABSENT) {
      if (slot != head) {
        unlink(slot);
        pushHead(slot);
        hitsThatWrote++;
      }
      return true;
    }
    if (size < capacity) {
      slot = size++;
    } else {
      slot = tail;
      unlink(slot);
      index.remove(keys[slot]);
    }
    keys[slot] = key;
    index.put(key, slot);
    pushHead(slot);
    return false;
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
