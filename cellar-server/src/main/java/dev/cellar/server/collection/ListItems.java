package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.LIST_ITEM;

import java.util.ArrayList;
import java.util.List;

/**
 * A list: elements at consecutive indexes from the header's {@code head}, each its own element
 * record {@code id 'L' index}. Pushing or popping at either end writes one record and the header;
 * reading or replacing by position is one lookup. Inserting or removing in the middle moves the
 * elements on the shorter side by one (Redis's {@code LINSERT} and {@code LREM} are O(n) too).
 *
 * <p>Indexes are signed 64-bit numbers: {@code head} goes down as elements are pushed on the left,
 * so a list starting at 0 has 2^63 pushes on either side before it could wrap.
 */
public final class ListItems extends OpenCollection {
  public ListItems(ElementEdits edits, byte[] key, Header header, long expireAt) {
    super(edits, key, CollectionDescriptor.LIST, header, expireAt);
  }

  private byte[] itemKey(long position) {
    return CollectionDescriptor.elementKey(header.id(), LIST_ITEM, header.head() + position);
  }

  /** The element at {@code position} (0 to count - 1). */
  public byte[] get(long position) {
    byte[] v = edits.get(itemKey(position));
    if (v == null) {
      throw new IllegalStateException(
          "list " + header.id() + " has no element at " + position + " of " + count());
    }
    return v;
  }

  public void set(long position, byte[] value) {
    edits.put(itemKey(position), value);
  }

  public void pushLeft(byte[] value, CollectionIds ids) {
    id(ids);
    header = header.withHead(header.head() - 1, header.count() + 1);
    set(0, value);
  }

  public void pushRight(byte[] value, CollectionIds ids) {
    id(ids);
    header = header.withCount(header.count() + 1);
    set(header.count() - 1, value);
  }

  /** Removes and returns the first element; the list must not be empty. */
  public byte[] popLeft() {
    byte[] v = get(0);
    edits.delete(itemKey(0));
    header = header.withHead(header.head() + 1, header.count() - 1);
    return v;
  }

  /** Removes and returns the last element; the list must not be empty. */
  public byte[] popRight() {
    long last = header.count() - 1;
    byte[] v = get(last);
    edits.delete(itemKey(last));
    header = header.withCount(last);
    return v;
  }

  /** The elements from {@code from} to {@code to}, both included and within the list. */
  public List<byte[]> range(long from, long to) {
    List<byte[]> out = new ArrayList<>((int) Math.max(0, Math.min(to - from + 1, 1 << 16)));
    for (long p = from; p <= to; p++) {
      out.add(get(p));
    }
    return out;
  }

  /** Inserts {@code value} so that it is at {@code position} (0 to count). */
  public void insert(long position, byte[] value) {
    long n = header.count();
    if (position <= n / 2) {
      // Shift the elements before it one to the left.
      header = header.withHead(header.head() - 1, n + 1);
      for (long p = 0; p < position; p++) {
        set(p, get(p + 1));
      }
    } else {
      header = header.withCount(n + 1);
      for (long p = n; p > position; p--) {
        set(p, get(p - 1));
      }
    }
    set(position, value);
  }

  /** Removes the element at {@code position}, closing the gap from the shorter side. */
  public void removeAt(long position) {
    long n = header.count();
    if (position < n / 2) {
      for (long p = position; p > 0; p--) {
        set(p, get(p - 1));
      }
      edits.delete(itemKey(0));
      header = header.withHead(header.head() + 1, n - 1);
    } else {
      for (long p = position; p < n - 1; p++) {
        set(p, get(p + 1));
      }
      edits.delete(itemKey(n - 1));
      header = header.withCount(n - 1);
    }
  }

  /** Keeps the elements from {@code from} to {@code to} (within the list, or none if from > to). */
  public void trim(long from, long to) {
    long n = header.count();
    if (from > to || from >= n) {
      for (long p = 0; p < n; p++) {
        edits.delete(itemKey(p));
      }
      header = header.withCount(0);
      return;
    }
    for (long p = to + 1; p < n; p++) {
      edits.delete(itemKey(p));
    }
    for (long p = 0; p < from; p++) {
      edits.delete(itemKey(p));
    }
    header = header.withHead(header.head() + from, to - from + 1);
  }
}
