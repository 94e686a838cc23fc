package dev.cellar.server.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One page of a scan in key order: of the keys offered, the {@code count} smallest that sort after
 * the previous page's last key (bytes compared unsigned). Offering every key of a full engine scan
 * costs time linear in the keys scanned and memory for {@code count + 1} keys: a max-heap keeps
 * the smallest ones seen so far.
 *
 * <p>Not thread-safe: one request builds one page.
 */
final class SortedKeyPage {
  private final byte[] after;
  private final int count;
  /** The smallest keys seen so far, largest on top; one more than a page, to tell if more remain. */
  private final PriorityQueue<byte[]> smallest;

  /**
   * @param after the last key of the previous page, or null for the first page
   * @param count the page size, at least 1
   */
  SortedKeyPage(byte[] after, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count " + count + " < 1");
    }
    this.after = after;
    this.count = count;
    this.smallest = new PriorityQueue<>(count + 1, (a, b) -> Arrays.compareUnsigned(b, a));
  }

  void offer(byte[] key) {
    if (after != null && Arrays.compareUnsigned(key, after) <= 0) {
      return;
    }
    if (smallest.size() <= count) {
      smallest.add(key);
    } else if (Arrays.compareUnsigned(key, smallest.peek()) < 0) {
      smallest.poll();
      smallest.add(key);
    }
  }

  /** The page's keys in ascending order. */
  List<byte[]> keys() {
    List<byte[]> sorted = new ArrayList<>(smallest);
    sorted.sort(Arrays::compareUnsigned);
    return sorted.size() > count ? sorted.subList(0, count) : sorted;
  }

  /** Whether keys after this page remain (then the last key of {@link #keys()} is the cursor). */
  boolean more() {
    return smallest.size() > count;
  }
}
