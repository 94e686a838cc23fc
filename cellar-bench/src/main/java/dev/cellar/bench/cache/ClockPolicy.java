package dev.cellar.bench.cache;

/**
 * CLOCK, second chance (Corbató, "A Paging Experiment with the Multics System", 1968): the entries
 * sit in a circle of slots, each with one reference bit. A hit sets the bit. A miss in a full cache
 * moves the hand round the circle, clearing set bits, until it finds a clear one; that entry is
 * replaced by the new key and the hand moves past it.
 *
 * <p>A new entry starts with its bit clear, as SIEVE's and S3-FIFO's new entries do: it is the
 * victim when the hand next reaches it unless it was asked for again in between. A hit writes only
 * when the bit was clear (check, then set), so a hot entry's hits write nothing.
 */
final class ClockPolicy implements CachePolicy {
  private final int capacity;
  private final IntIndex index;
  private final int[] keys;
  private final boolean[] referenced;
  private int hand;
  private int size;
  private long hitsThatWrote;

  ClockPolicy(int capacity) {
    this.capacity = PolicyKind.checkCapacity(capacity);
    this.index = new IntIndex(capacity);
    this.keys = new int[capacity];
    this.referenced = new boolean[capacity];
  }

  @Override
  public boolean access(int key) {
    int slot = index.get(key);
    if (slot != IntIndex.ABSENT) {
      if (!referenced[slot]) {
        referenced[slot] = true;
        hitsThatWrote++;
      }
      return true;
    }
    if (size < capacity) {
      slot = size++;
    } else {
      while (referenced[hand]) {
        referenced[hand] = false;
        hand = next(hand);
      }
      slot = hand;
      hand = next(hand);
      index.remove(keys[slot]);
    }
    keys[slot] = key;
    referenced[slot] = false;
    index.put(key, slot);
    return false;
  }

  private int next(int slot) {
    return slot + 1 == capacity ? 0 : slot + 1;
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
