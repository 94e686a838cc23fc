package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.LIST_ITEM;
import static dev.cellar.server.collection.CollectionDescriptor.PACK_MAX_ITEMS;
import static dev.cellar.server.collection.CollectionDescriptor.PACK_MAX_ITEM_BYTES;

import java.util.ArrayList;
import java.util.List;

/**
 * A list, in one of two forms (docs/format/collections.md, "Lists").
 *
 * <p><b>Packed</b>, while it has at most {@link CollectionDescriptor#PACK_MAX_ITEMS} elements of at
 * most {@link CollectionDescriptor#PACK_MAX_ITEM_BYTES} bytes: its elements live in its header, and
 * every change rewrites that one record (bounded by the limits, about 8 KiB). This is Redis's
 * listpack: a list of ten small elements costs one record and one index entry rather than twelve
 * (it takes no id and no owner record until it spreads), which is what keeps a million small lists
 * within Redis's memory and recovers them in one record each. A list is created packed.
 *
 * <p><b>Spread</b>, once it outgrows either limit (for good: a shrinking list stays spread): its
 * elements are at consecutive indexes from the header's {@code head}, each its own element record
 * {@code id 'L' index}. Pushing or popping at either end writes one record and the header; reading
 * or replacing by position is one lookup. Inserting or removing in the middle moves the elements on
 * the shorter side by one (Redis's {@code LINSERT} and {@code LREM} are O(n) too). Indexes are
 * signed 64-bit numbers: {@code head} goes down as elements are pushed on the left, so a list
 * starting at 0 has 2^63 pushes on either side before it could wrap.
 */
public final class ListItems extends OpenCollection {
  /** The elements of a packed list, as this command leaves them; null when spread. */
  private List<byte[]> packed;

  /** Whether {@link #packed} changed, so that {@link #finish} writes it into the header. */
  private boolean repack;

  public ListItems(ElementEdits edits, byte[] key, Header header, long expireAt) {
    super(edits, key, CollectionDescriptor.LIST, header, expireAt);
    if (header == null) {
      packed = new ArrayList<>();
    } else if (header.items() != null) {
      packed = CollectionDescriptor.unpackItems(header.items(), header.count());
    }
  }

  /** Whether the elements live in the header (Redis would say "listpack"). */
  public boolean isPacked() {
    return packed != null;
  }

  private byte[] itemKey(long position) {
    return CollectionDescriptor.elementKey(header.id(), LIST_ITEM, header.head() + position);
  }

  /** The element at {@code position} (0 to count - 1). */
  public byte[] get(long position) {
    if (packed != null) {
      return packed.get((int) position);
    }
    byte[] v = edits.get(itemKey(position));
    if (v == null) {
      throw new IllegalStateException(
          "list " + header.id() + " has no element at " + position + " of " + count());
    }
    return v;
  }

  /** Replaces the element at {@code position}; {@code ids} gives an id if the list spreads. */
  public void set(long position, byte[] value, CollectionIds ids) {
    if (packed != null) {
      packed.set((int) position, value);
      changed(value, ids);
      return;
    }
    write(position, value);
  }

  private void write(long position, byte[] value) {
    edits.put(itemKey(position), value);
  }

  public void pushLeft(byte[] value, CollectionIds ids) {
    if (packed != null) {
      pushPacked(0, value, ids);
      return;
    }
    header = header.withHead(header.head() - 1, header.count() + 1);
    write(0, value);
  }

  public void pushRight(byte[] value, CollectionIds ids) {
    if (packed != null) {
      pushPacked(packed.size(), value, ids);
      return;
    }
    header = header.withCount(header.count() + 1);
    write(header.count() - 1, value);
  }

  /** Removes and returns the first element; the list must not be empty. */
  public byte[] popLeft() {
    if (packed != null) {
      header = header.withCount(header.count() - 1);
      repack = true;
      return packed.removeFirst();
    }
    byte[] v = get(0);
    edits.delete(itemKey(0));
    header = header.withHead(header.head() + 1, header.count() - 1);
    return v;
  }

  /** Removes and returns the last element; the list must not be empty. */
  public byte[] popRight() {
    if (packed != null) {
      header = header.withCount(header.count() - 1);
      repack = true;
      return packed.removeLast();
    }
    long last = header.count() - 1;
    byte[] v = get(last);
    edits.delete(itemKey(last));
    header = header.withCount(last);
    return v;
  }

  /** The elements from {@code from} to {@code to}, both included and within the list. */
  public List<byte[]> range(long from, long to) {
    if (packed != null) {
      return new ArrayList<>(packed.subList((int) from, (int) to + 1));
    }
    List<byte[]> out = new ArrayList<>((int) Math.max(0, Math.min(to - from + 1, 1 << 16)));
    for (long p = from; p <= to; p++) {
      out.add(get(p));
    }
    return out;
  }

  /** A push onto a packed list, at {@code position}: the list is created if it was absent. */
  private void pushPacked(int position, byte[] value, CollectionIds ids) {
    createPacked(ids);
    packed.add(position, value);
    header = header.withCount(header.count() + 1);
    changed(value, ids);
  }

  /**
   * Inserts {@code value} so that it is at {@code position} (0 to count); {@code ids} gives an id
   * if the list spreads.
   */
  public void insert(long position, byte[] value, CollectionIds ids) {
    long n = header.count();
    if (packed != null) {
      packed.add((int) position, value);
      header = header.withCount(n + 1);
      changed(value, ids);
      return;
    }
    if (position <= n / 2) {
      // Shift the elements before it one to the left.
      header = header.withHead(header.head() - 1, n + 1);
      for (long p = 0; p < position; p++) {
        write(p, get(p + 1));
      }
    } else {
      header = header.withCount(n + 1);
      for (long p = n; p > position; p--) {
        write(p, get(p - 1));
      }
    }
    write(position, value);
  }

  /** Removes the element at {@code position}, closing the gap from the shorter side. */
  public void removeAt(long position) {
    long n = header.count();
    if (packed != null) {
      packed.remove((int) position);
      header = header.withCount(n - 1);
      repack = true;
      return;
    }
    if (position < n / 2) {
      for (long p = position; p > 0; p--) {
        write(p, get(p - 1));
      }
      edits.delete(itemKey(0));
      header = header.withHead(header.head() + 1, n - 1);
    } else {
      for (long p = position; p < n - 1; p++) {
        write(p, get(p + 1));
      }
      edits.delete(itemKey(n - 1));
      header = header.withCount(n - 1);
    }
  }

  /** Keeps the elements from {@code from} to {@code to} (within the list, or none if from > to). */
  public void trim(long from, long to) {
    long n = header.count();
    if (packed != null) {
      packed =
          from > to || from >= n
              ? new ArrayList<>()
              : new ArrayList<>(packed.subList((int) from, (int) to + 1));
      header = header.withCount(packed.size());
      repack = true;
      return;
    }
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

  /**
   * Notes a change to a packed list that put {@code value} in it, and spreads the list if that took
   * it past a limit.
   */
  private void changed(byte[] value, CollectionIds ids) {
    repack = true;
    if (packed.size() > PACK_MAX_ITEMS || value.length > PACK_MAX_ITEM_BYTES) {
      spread(ids);
    }
  }

  /**
   * Moves a packed list's elements into element records, from index {@code head} on, under an id it
   * takes now if it has none.
   */
  private void spread(CollectionIds ids) {
    List<byte[]> items = packed;
    packed = null;
    repack = false;
    id(ids);
    header = header.withItems(null);
    for (int p = 0; p < items.size(); p++) {
      write(p, items.get(p));
    }
  }

  @Override
  public void finish() {
    if (packed != null && repack) {
      header = header.withItems(CollectionDescriptor.packItems(packed));
      repack = false;
    }
    super.finish();
  }
}
