package dev.cellar.bench.cache;

/**
 * A FIFO of ints in a circular array that doubles when full: S3-FIFO's queues, which only ever add
 * at the head and take from the tail.
 */
final class IntRing {
  private int[] items;
  private int first;
  private int size;

  IntRing(int initialCapacity) {
    items = new int[Math.max(2, initialCapacity)];
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  void add(int value) {
    if (size == items.length) {
      grow();
    }
    int at = first + size;
    items[at >= items.length ? at - items.length : at] = value;
    size++;
  }

  /** The oldest value; the ring must not be empty. */
  int peekOldest() {
    return items[first];
  }

  /** Removes and returns the oldest value; the ring must not be empty. */
  int pollOldest() {
    int value = items[first];
    first = first + 1 == items.length ? 0 : first + 1;
    size--;
    return value;
  }

  private void grow() {
    int[] larger = new int[items.length * 2];
    for (int i = 0; i < size; i++) {
      int at = first + i;
      larger[i] = items[at >= items.length ? at - items.length : at];
    }
    items = larger;
    first = 0;
  }
}
