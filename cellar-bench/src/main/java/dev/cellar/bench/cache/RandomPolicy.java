package dev.cellar.bench.cache;

import java.util.SplittableRandom;

/**
 * Random replacement: the victim is a slot chosen uniformly. Not a candidate, a floor: a policy
 * that does no better than this on a skewed trace has learnt nothing from it.
 */
final class RandomPolicy implements CachePolicy {
  private final int capacity;
  private final IntIndex index;
  private final int[] keys;
  private final SplittableRandom random;
  private int size;

  RandomPolicy(int capacity, long seed) {
    this.capacity = PolicyKind.checkCapacity(capacity);
    this.index = new IntIndex(capacity);
    this.keys = new int[capacity];
    this.random = new SplittableRandom(seed);
  }

  @Override
  public boolean access(int key) {
    if (index.get(key) != IntIndex.ABSENT) {
      return true;
    }
    int slot;
    if (size < capacity) {
      slot = size++;
    } else {
      slot = random.nextInt(capacity);
      index.remove(keys[slot]);
    }
    keys[slot] = key;
    index.put(key, slot);
    return false;
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
    return 0;
  }
}
