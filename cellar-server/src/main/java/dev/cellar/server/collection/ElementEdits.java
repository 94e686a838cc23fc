package dev.cellar.server.collection;

import dev.cellar.Cellar;
import dev.cellar.LimitExceededException;
import dev.cellar.WriteBatch;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;

/**
 * One command's changes to one or more collections, read back by the command as it makes them and
 * written at the end as one atomic unit ({@link Cellar#write(WriteBatch)}): element puts and
 * deletes, and each collection's new header (or its deletion). A crash or a reader sees a command
 * that changed a collection's elements and its count all or not at all.
 *
 * <p>Used by the one thread running the command, under the stripe locks of its keys.
 *
 * <p>Every collection command makes one, and most change one to three keys, so the edits are kept
 * in insertion order in plain arrays, found by comparing keys, with a hash map beside them only
 * once a command changes more than {@link Keyed#LINEAR} keys (LTRIM, COPY, a collection spreading).
 * A map of {@code ByteBuffer} keys from the start cost a push or an HSET some 400 bytes of garbage.
 */
public final class ElementEdits {
  /**
   * The most bytes of element keys and values one command may change: a command that would write
   * more (LTRIM of millions, COPY of a huge collection) fails before it gathers them on the heap,
   * rather than after, when the engine would refuse so large a unit anyway.
   */
  public static final long LIMIT_BYTES = 64L << 20;

  /** What the heap spends on each change besides its bytes. */
  private static final long OVERHEAD_BYTES = 96;

  private final Cellar store;
  private final PackLimits limits;
  private long bytes;

  /** Element writes by key; a null value is a delete. */
  private final Keyed<byte[]> elements = new Keyed<>();

  /** Header writes by key, with their expiries; a null header is a delete. */
  private final Keyed<HeaderWrite> headers = new Keyed<>();

  private record HeaderWrite(Header header, long expireAt) {}

  /**
   * Values by key in insertion order, a key's later value replacing its earlier one in place (as a
   * {@code LinkedHashMap} keeps them).
   */
  private static final class Keyed<V> {
    /** Up to this many keys are found by comparing them all. */
    static final int LINEAR = 8;

    /** Key and value of each entry, side by side; null until the first entry. */
    private Object[] slots;

    private int size;

    /** Position by key, once there are more than {@link #LINEAR} keys; null until then. */
    private HashMap<ByteBuffer, Integer> positions;

    int size() {
      return size;
    }

    byte[] key(int i) {
      return (byte[]) slots[2 * i];
    }

    @SuppressWarnings("unchecked")
    V value(int i) {
      return (V) slots[2 * i + 1];
    }

    /** The position of {@code key}, or -1. */
    int find(byte[] key) {
      if (positions != null) {
        Integer at = positions.get(ByteBuffer.wrap(key));
        return at == null ? -1 : at;
      }
      for (int i = 0; i < size; i++) {
        if (Arrays.equals(key(i), key)) {
          return i;
        }
      }
      return -1;
    }

    void put(byte[] key, V value) {
      int at = find(key);
      if (at >= 0) {
        slots[2 * at + 1] = value;
        return;
      }
      if (slots == null) {
        slots = new Object[4];
      } else if (2 * size == slots.length) {
        slots = Arrays.copyOf(slots, slots.length * 2);
      }
      slots[2 * size] = key;
      slots[2 * size + 1] = value;
      size++;
      if (positions != null) {
        positions.put(ByteBuffer.wrap(key), size - 1);
      } else if (size > LINEAR) {
        positions = new HashMap<>();
        for (int i = 0; i < size; i++) {
          positions.put(ByteBuffer.wrap(key(i)), i);
        }
      }
    }

    void clear() {
      if (slots != null) {
        Arrays.fill(slots, 0, 2 * size, null);
      }
      size = 0;
      positions = null;
    }
  }

  /** Edits under Redis's default encoding thresholds (streams, tools: nothing they pack). */
  public ElementEdits(Cellar store) {
    this(store, PackLimits.REDIS_DEFAULTS);
  }

  public ElementEdits(Cellar store, PackLimits limits) {
    this.store = store;
    this.limits = limits;
  }

  public Cellar store() {
    return store;
  }

  /** The encoding thresholds the collections this command changes pack under. */
  public PackLimits limits() {
    return limits;
  }

  /** The element's value as this command left it, or null. */
  public byte[] get(byte[] key) {
    int at = elements.size() == 0 ? -1 : elements.find(key);
    return at >= 0 ? elements.value(at) : store.getElement(key);
  }

  public void put(byte[] key, byte[] value) {
    count(key.length + value.length);
    elements.put(key, value);
  }

  public void delete(byte[] key) {
    count(key.length);
    elements.put(key, null);
  }

  private void count(long length) {
    bytes += length + OVERHEAD_BYTES;
    if (bytes > LIMIT_BYTES) {
      throw new LimitExceededException(
          "one command would change more than "
              + (LIMIT_BYTES >> 20)
              + " MiB of a collection at once; nothing was written (change it in smaller steps)");
    }
  }

  /**
   * Sets the header the collection under {@code key} will have ({@code null}: the collection is
   * gone), with {@code expireAt} as its expiry.
   */
  public void header(byte[] key, Header header, long expireAt) {
    headers.put(key, new HeaderWrite(header, expireAt));
  }

  /** Whether anything was changed. */
  public boolean isEmpty() {
    return elements.size() == 0 && headers.size() == 0;
  }

  /** Writes every change as one unit, and forgets them. */
  public void commit() {
    if (isEmpty()) {
      return;
    }
    WriteBatch batch = new WriteBatch(headers.size() + elements.size());
    for (int i = 0; i < headers.size(); i++) {
      HeaderWrite h = headers.value(i);
      if (h.header == null) {
        batch.delete(headers.key(i));
      } else {
        batch.putHeader(headers.key(i), h.header.encode(), h.expireAt);
      }
    }
    for (int i = 0; i < elements.size(); i++) {
      byte[] value = elements.value(i);
      if (value == null) {
        batch.deleteElement(elements.key(i));
      } else {
        batch.putElement(elements.key(i), value);
      }
    }
    store.write(batch);
    elements.clear();
    headers.clear();
    bytes = 0;
  }
}
