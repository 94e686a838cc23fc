package dev.cellar.store;

import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_END;

import dev.cellar.ScanPage;
import dev.cellar.index.HashIndex;
import dev.cellar.log.RecordView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Produces one page of a resumable scan ({@link Store#scanPage}): the live keys of the index
 * entries in the next stretch of the hash space after the cursor.
 *
 * <h2>Why fingerprint ranges</h2>
 *
 * A stateless cursor must name a position that survives whatever happens between two calls. Slot
 * numbers do not: a backward-shift deletion moves an entry back over slots already passed, and
 * growth rehashes every entry into a table twice the size. A key's hash never changes, and {@link
 * HashIndex#scan} enumerates exactly the entries whose fingerprint (the top 22 bits of the hash)
 * lies in a range, in a table of any size and during a migration. So the cursor ({@link
 * ScanCursorDescriptor}) is a shard and a fingerprint bound below which that shard has been
 * covered. The ranges of one iteration partition the hash space and each is read under its shard's
 * read lock, which excludes writers: a key present throughout is in the index when its range is
 * read, so it is returned, and a key is examined in one range only, so it is returned at most once.
 *
 * <h2>Sizing a page</h2>
 *
 * Hashes are uniform, so a shard holding n entries has about n * w / 2^22 of them in a range of
 * width w. A page reads ranges of the width expected to hold the entries it still wants and stops
 * once it has examined {@code count} entries (before filtering by prefix and expiry, as Redis
 * counts), once it has read {@link #SLOTS_PER_ENTRY} * count slots (a sparse or oversized table),
 * or at the end of the last shard; a shard with no entries costs a lock and nothing else.
 *
 * <h2>Locks and the log</h2>
 *
 * The read lock makes writers to the shard wait, never readers (their optimistic stamps survive a
 * read lock); it is released after at most {@link #SLOTS_PER_HOLD} slots and taken again, so a
 * large {@code count} does not stall a shard's writers for long. Keys are read from the log under
 * the lock, and that is safe although compaction unmaps segments. {@code Store.deleteSegments}
 * unmaps only obsolete segments; {@link Compactor} makes a segment obsolete only after it has moved
 * every index entry that pointed into it (each move under the shard's write lock), and no entry
 * ever comes to point into a segment once it is sealed, as appends go to the active segment and
 * moves to new outputs. So an entry seen under the read lock pointing into a segment is one whose
 * move has not happened and cannot happen until the lock is released: the segment stays mapped
 * while we read.
 *
 * <p>Used by one thread for one page.
 */
final class ScanPageTask implements LongConsumer {
  /**
   * Slots a page may read per entry it wants: 4 would do at the lowest load (3/8) during a
   * migration.
   */
  static final int SLOTS_PER_ENTRY = 10;

  /** Slots read under one hold of a shard's read lock (about 32 KiB of index and 3,000 keys). */
  static final long SLOTS_PER_HOLD = 4096;

  private final Keyspace keyspace;
  private final Shard[] shards;
  private final MemorySegment prefix;
  private final long count;

  /** Whether the page is of element keys, not of plain ones. */
  private final boolean elements;

  private final long slotBudget;
  private final long now = System.currentTimeMillis();
  private final RecordView view = new RecordView();
  private final List<byte[]> keys = new ArrayList<>();
  private long examined;
  private long slotsRead;

  /**
   * @param prefix the keys' prefix; null for a page of expired keys instead of live ones ({@link
   *     Store#expiredKeys})
   */
  ScanPageTask(Keyspace keyspace, byte[] prefix, int count, boolean elements) {
    this.elements = elements;
    this.keyspace = keyspace;
    this.shards = keyspace.shards();
    this.prefix = prefix == null ? null : MemorySegment.ofArray(prefix.clone());
    this.count = count;
    this.slotBudget = SLOTS_PER_ENTRY * (long) count;
  }

  ScanPage run(long cursor) {
    ScanCursorDescriptor.validate(cursor, shards.length);
    int shard = ScanCursorDescriptor.shard(cursor);
    long bound = ScanCursorDescriptor.bound(cursor);
    do {
      bound = scanPiece(shards[shard], bound);
      if (bound == FINGERPRINT_END) {
        if (++shard == shards.length) {
          return new ScanPage(ScanPage.START, keys);
        }
        bound = 0;
      }
    } while (!full());
    return new ScanPage(ScanCursorDescriptor.encode(shard, bound, shards.length), keys);
  }

  private boolean full() {
    return examined >= count || slotsRead >= slotBudget;
  }

  /**
   * Covers fingerprints from {@code from} on in one hold of the shard's lock; returns the new
   * bound.
   */
  private long scanPiece(Shard shard, long from) {
    long stamp = shard.lock.readLock();
    try {
      keyspace.checkOpen();
      HashIndex index = shard.index;
      if (index.size() == 0) {
        return FINGERPRINT_END;
      }
      long holdEnd = slotsRead + SLOTS_PER_HOLD;
      long bound = from;
      while (bound < FINGERPRINT_END && !full() && slotsRead < holdEnd) {
        long to = Math.min(FINGERPRINT_END, bound + width(index, holdEnd));
        slotsRead += index.scan(bound, to, this);
        bound = to;
      }
      return bound;
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  /**
   * The width of the next range: enough to hold the entries still wanted, on average, and no more
   * than the slots left to read would cover in the primary table (a migration adds at most half).
   */
  private long width(HashIndex index, long holdEnd) {
    long wanted = (count - examined) * FINGERPRINT_END;
    long byEntries = (wanted + index.size() - 1) / index.size();
    long slotsLeft = Math.min(slotBudget, holdEnd) - slotsRead;
    long bySlots = slotsLeft * FINGERPRINT_END / index.capacity();
    return Math.max(1, Math.min(byEntries, bySlots));
  }

  /** One index entry of the range being read; the shard's read lock is held. */
  @Override
  public void accept(long location) {
    examined++;
    byte[] key =
        prefix == null
            ? keyspace.expiredKeyAt(location, now, view)
            : keyspace.liveKeyAt(location, prefix, now, view, elements);
    if (key != null) {
      keys.add(key);
    }
  }
}
