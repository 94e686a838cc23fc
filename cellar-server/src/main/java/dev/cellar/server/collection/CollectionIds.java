package dev.cellar.server.collection;

import dev.cellar.Cellar;
import dev.cellar.WriteBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Hands out collection ids, never the same one twice in a store's life, so that the elements of a
 * deleted collection can never be taken for a newer one's ({@link CollectionDescriptor}).
 *
 * <h2>How</h2>
 *
 * Ids come from blocks of {@link #BLOCK}: before the first id of a block is handed out, the block's
 * end is written to the element key {@link #KEY} (shorter than any element key of a collection, so
 * no collection's records can be it). The log is a sequence, so any record that uses an id was
 * appended after the end of its block was: a reopen that finds a collection finds its block's end
 * too, and starts after it. A crash wastes the rest of a block; 2^64 ids are not at risk.
 *
 * <p>It writes to the store itself, never through a transaction's view: an id handed out inside a
 * transaction that then fails is simply never used, while a block end written only with that
 * transaction would be lost with it.
 *
 * <p>Thread-safe: {@link #next} is synchronized; a block write happens once per {@link #BLOCK} ids.
 */
public final class CollectionIds {
  /** The element key holding the end of the current block: not 9 bytes or more. */
  static final byte[] KEY = {0, 'i', 'd', 's'};

  static final long BLOCK = 1 << 16;

  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Cellar store;
  private long next;
  private long end;

  /** Whether the store may hold a collection: it has handed out an id, now or before a restart. */
  private volatile boolean used;

  public CollectionIds(Cellar store) {
    this.store = store;
    Long saved = store.readElement(MemorySegment.ofArray(KEY), v -> v.get(LE, 0));
    this.next = saved == null ? 1 : saved;
    this.end = next;
    this.used = saved != null;
  }

  /**
   * Whether any collection was ever created in this store: while none was, no key can hold one, and
   * a string read that misses need not look for a header (the GET path's one extra lookup).
   */
  public boolean used() {
    return used;
  }

  /**
   * Records that the store holds a collection that took no id (a packed one): the first time, an id
   * is handed out for it (and the block end written), so that {@link #used} stays true after a
   * restart too.
   */
  public void markUsed() {
    if (!used) {
      next();
    }
  }

  /** A fresh id. */
  public synchronized long next() {
    if (next == end) {
      long newEnd = end + BLOCK;
      byte[] value = new byte[Long.BYTES];
      MemorySegment.ofArray(value).set(LE, 0, newEnd);
      store.write(new WriteBatch().putElement(KEY.clone(), value));
      end = newEnd;
      used = true;
    }
    return next++;
  }
}
