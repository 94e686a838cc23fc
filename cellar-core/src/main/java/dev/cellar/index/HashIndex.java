package dev.cellar.index;

import static dev.cellar.index.IndexSlotDescriptor.EMPTY;
import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_BITS;
import static dev.cellar.index.IndexSlotDescriptor.FINGERPRINT_END;
import static dev.cellar.index.IndexSlotDescriptor.LOCATION_BITS;
import static dev.cellar.index.IndexSlotDescriptor.MOVED;

import dev.cellar.platform.MemoryAdvice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongConsumer;
import java.util.random.RandomGenerator;

/**
 * An off-heap open-addressing hash table from keys to log locations. Keys themselves are not
 * stored: a slot holds a fingerprint and a location ({@link IndexSlotDescriptor}), and candidate
 * matches are confirmed by comparing the key in the log through {@link Keys}.
 *
 * <h2>Layout and probing</h2>
 *
 * Linear probing over a power-of-two array of {@code long}s in a {@link MemorySegment}. A key's
 * home slot is the top {@code log2(capacity)} bits of its hash, so slots are in hash order and a
 * probe sequence stays in one or two cache lines. Deletion shifts later entries back (no
 * tombstones), so lookups never slow down after churn. Load factor is kept at or below 3/4.
 *
 * <h2>Growth without a pause</h2>
 *
 * When the table passes 3/4 full, a table twice the size becomes primary and the old one
 * "retiring". Every write then migrates a few slots from the retiring table (leaving a MOVED marker
 * so probe chains there stay intact), and lookups consult primary, then retiring. Migration
 * finishes long before the new table could fill, and the old memory is freed at once. No operation
 * ever rehashes more than {@link #MIGRATE_PER_WRITE} slots.
 *
 * <h2>Iterating in pieces</h2>
 *
 * {@link #scan} visits the entries whose fingerprint lies in a range. Because fingerprint and home
 * are both taken from the top of the hash, the entries of a range sit in one stretch of slots (plus
 * the probe run that spills past its end), in any table size and whatever growth and deletion have
 * moved; a caller can therefore cover the whole index in many short calls, each holding the shard
 * lock briefly, and lose no entry that stayed in the index throughout. Positions are not usable for
 * that: a backward shift moves an entry to a slot an iteration has already passed, and growth moves
 * every entry. The scan cursor of {@code docs/format/index.md} builds on this.
 *
 * <h2>Concurrency</h2>
 *
 * Not thread-safe for writes: the owning shard's write lock serialises them. Readers run under the
 * shard's optimistic read stamp, so they may observe a half-done write (a shifted slot, a closed
 * retiring table); whatever they read is discarded unless the stamp validates afterwards, and every
 * access is bounds-checked by the FFM API, so a torn read cannot fault.
 */
public final class HashIndex implements AutoCloseable {
  /** How many slots of the retiring table each write migrates. */
  static final int MIGRATE_PER_WRITE = 16;

  private static final int MIN_CAPACITY = 1024;

  /**
   * Index bytes per entry at the lowest load a table reaches by growth: it doubles past 3/4 full,
   * so it is then 3/8 full and each entry costs a slot over 3/8 (21 bytes). A table below that load
   * is its preallocated minimum or was sized for expected keys, which no one key causes.
   */
  public static final long MAX_BYTES_PER_GROWN_ENTRY = IndexSlotDescriptor.BYTES * 8L / 3;

  /**
   * Slots {@link #guessLocation} looks at: one cache line's worth, which {@link #touch} brought in.
   */
  private static final int GUESS_PROBES = 8;

  private static final int DIRECT_HOME_MAX_BITS = IndexSlotDescriptor.FINGERPRINT_BITS;

  /** How a lookup compares a candidate's key: the index never reads records itself. */
  public interface KeyMatch {
    /**
     * Whether the record at {@code location} has as its key the {@code length} bytes of {@code
     * source} from {@code offset}. Keys come as ranges so that a caller holding them inside a
     * larger buffer (a server's input) looks them up without a slice object per key.
     */
    boolean matches(long location, MemorySegment source, long offset, long length);
  }

  /** The index's window onto the log. */
  public interface Keys extends KeyMatch {
    /**
     * {@link #matches}, asked by {@link #put} of a candidate it will replace if the key matches:
     * the log may start loading what retiring that record will touch.
     */
    default boolean matchesForReplacement(
        long location, MemorySegment source, long offset, long length) {
      return matches(location, source, offset, length);
    }

    /** The hash of the key of the record at {@code location} (for tables over 2^22 slots). */
    long hashAt(long location);
  }

  private final Keys keys;
  private Table primary;
  private Table retiring;
  private long migrateCursor;
  private long size;

  public HashIndex(Keys keys, long expectedEntries) {
    this.keys = keys;
    long capacity = MIN_CAPACITY;
    while (capacity * 3 / 4 < expectedEntries) {
      capacity <<= 1;
    }
    this.primary = Table.allocate(capacity);
  }

  private HashIndex(Keys keys, Table table, long size) {
    this.keys = keys;
    this.primary = table;
    this.size = size;
  }

  /**
   * An index holding a copy of {@code slots} (from a checkpoint). Copying into fresh, huge-page
   * backed memory costs tens of milliseconds for hundreds of megabytes and gives the same lookup
   * speed as an index built in this process.
   */
  public static HashIndex copyOf(Keys keys, MemorySegment slots, long size) {
    Table table = Table.allocate(slots.byteSize() / IndexSlotDescriptor.BYTES);
    MemorySegment.copy(slots, 0, table.memory, 0, slots.byteSize());
    return new HashIndex(keys, table, size);
  }

  /**
   * Checks slots read from a file against what {@link #copyOf} relies on: at least the minimum
   * capacity (a smaller table breaks the home-slot arithmetic), no MOVED markers, and exactly
   * {@code size} occupied slots, fewer than the capacity (probes and shifts stop at an empty slot,
   * so a full table would never let them end). Returns null if they hold, else what is wrong.
   */
  public static String checkSlots(MemorySegment slots, long size) {
    long capacity = slots.byteSize() / IndexSlotDescriptor.BYTES;
    if (capacity < MIN_CAPACITY || Long.bitCount(capacity) != 1) {
      return "index table of "
          + capacity
          + " slots; tables have a power of two, at least "
          + MIN_CAPACITY;
    }
    long occupied = 0;
    for (long i = 0; i < capacity; i++) {
      long w = slots.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
      if (w == MOVED) {
        return "slot " + i + " holds a migration marker";
      }
      if (w != EMPTY) {
        occupied++;
      }
    }
    if (occupied != size || occupied >= capacity) {
      return occupied + " of " + capacity + " slots occupied, but " + size + " keys recorded";
    }
    return null;
  }

  /** The location stored for {@code key}, or 0. */
  public long get(long hash, MemorySegment key) {
    return get(hash, key, 0, key.byteSize());
  }

  /** The location stored for the key in {@code source[offset, offset + length)}, or 0. */
  public long get(long hash, MemorySegment source, long offset, long length) {
    return get(hash, source, offset, length, keys);
  }

  /**
   * {@link #get(long, MemorySegment, long, long)}, comparing keys with {@code match}: a reader's
   * own, which may keep what it read of the record it settles on. Once a location is returned, the
   * last candidate {@code match} was asked about is that location, and it said yes.
   */
  public long get(long hash, MemorySegment source, long offset, long length, KeyMatch match) {
    long found = find(primary, hash, source, offset, length, match);
    if (found >= 0) {
      return IndexSlotDescriptor.location(primary.word(found));
    }
    Table old = retiring;
    if (old != null) {
      found = find(old, hash, source, offset, length, match);
      if (found >= 0) {
        return IndexSlotDescriptor.location(old.word(found));
      }
    }
    return 0;
  }

  /**
   * Whether the key with {@code hash} is mapped to {@code location} right now. Unlike {@link #get}
   * this compares slot words only and never reads a record: a location names one record, so the
   * fingerprint and the location together settle it. Compaction asks this of every record it scans;
   * comparing keys would cost a read of the key's current record, a second random miss.
   */
  public boolean holds(long hash, long location) {
    long expected = IndexSlotDescriptor.word(hash, location);
    return slotOfWord(primary, hash, expected) >= 0
        || (retiring != null && slotOfWord(retiring, hash, expected) >= 0);
  }

  /**
   * Reads the home slot of {@code hash} and returns it, so that a lookup soon after finds it in
   * cache. A caller with many keys at hand touches them all first: the reads are independent, so
   * the CPU overlaps their cache misses, where lookups one at a time (each behind a lock's atomic
   * instruction) take them in turn. Safe without the shard's lock: it reads one word and keeps
   * nothing, and a table freed under it is reported by its arena, not read.
   */
  public long touch(long hash) {
    Table t = primary;
    try {
      return t.word(home(t, hash));
    } catch (IllegalStateException freed) {
      return 0;
    }
  }

  /**
   * The location of the first entry in {@code hash}'s probe run with its fingerprint, or 0: a guess
   * at the key's location for prefetching, read without a lock and without comparing keys. Never
   * use it to answer a lookup.
   */
  public long guessLocation(long hash) {
    Table t = primary;
    long fingerprint = IndexSlotDescriptor.fingerprint(hash);
    try {
      for (long i = home(t, hash), probes = 0;
          probes < GUESS_PROBES;
          i = (i + 1) & t.mask, probes++) {
        long w = t.word(i);
        if (w == EMPTY) {
          return 0;
        }
        if ((w >>> LOCATION_BITS) == fingerprint && w != MOVED) {
          return IndexSlotDescriptor.location(w);
        }
      }
    } catch (IllegalStateException freed) {
      // the table was replaced and freed: no guess
    }
    return 0;
  }

  /** Maps {@code key} to {@code location}; returns the location it replaced, or 0. */
  public long put(long hash, MemorySegment key, long location) {
    return put(hash, key, 0, key.byteSize(), location);
  }

  /**
   * {@link #put(long, MemorySegment, long)} with the key in {@code source[offset, offset +
   * length)}.
   */
  public long put(long hash, MemorySegment source, long offset, long length, long location) {
    migrateStep();
    long previous = 0;
    if (retiring != null) {
      long at = find(retiring, hash, source, offset, length);
      if (at >= 0) {
        previous = IndexSlotDescriptor.location(retiring.word(at));
        retiring.set(at, MOVED);
        size--;
      }
    }
    long word = IndexSlotDescriptor.word(hash, location);
    long mask = primary.mask;
    for (long i = home(primary, hash); ; i = (i + 1) & mask) {
      long w = primary.word(i);
      if (w == EMPTY) {
        primary.set(i, word);
        size++;
        growIfNeeded();
        return previous;
      }
      if (sameFingerprint(w, hash)
          && keys.matchesForReplacement(IndexSlotDescriptor.location(w), source, offset, length)) {
        primary.set(i, word);
        return IndexSlotDescriptor.location(w);
      }
    }
  }

  /** Removes {@code key}; returns the location it had, or 0. */
  public long remove(long hash, MemorySegment key) {
    return remove(hash, key, 0, key.byteSize());
  }

  /**
   * {@link #remove(long, MemorySegment)} with the key in {@code source[offset, offset + length)}.
   */
  public long remove(long hash, MemorySegment source, long offset, long length) {
    migrateStep();
    long at = find(primary, hash, source, offset, length);
    if (at >= 0) {
      long location = IndexSlotDescriptor.location(primary.word(at));
      deleteAndShift(primary, at);
      size--;
      return location;
    }
    if (retiring != null) {
      at = find(retiring, hash, source, offset, length);
      if (at >= 0) {
        long location = IndexSlotDescriptor.location(retiring.word(at));
        retiring.set(at, MOVED);
        size--;
        return location;
      }
    }
    return 0;
  }

  /**
   * Points the entry at {@code from} to {@code to} if the entry for the key with {@code hash} still
   * has location {@code from} (compaction moving a record). Returns whether it did.
   */
  public boolean relocate(long hash, long from, long to) {
    long expected = IndexSlotDescriptor.word(hash, from);
    if (replaceWord(primary, hash, expected, IndexSlotDescriptor.word(hash, to))) {
      return true;
    }
    return retiring != null
        && replaceWord(retiring, hash, expected, IndexSlotDescriptor.word(hash, to));
  }

  /**
   * Removes the entry for the key with {@code hash} if it still has location {@code location}
   * (compaction reclaiming an expired record). Returns whether it did.
   */
  public boolean removeLocation(long hash, long location) {
    migrateStep();
    long expected = IndexSlotDescriptor.word(hash, location);
    long at = slotOfWord(primary, hash, expected);
    if (at >= 0) {
      deleteAndShift(primary, at);
      size--;
      return true;
    }
    if (retiring != null) {
      at = slotOfWord(retiring, hash, expected);
      if (at >= 0) {
        retiring.set(at, MOVED);
        size--;
        return true;
      }
    }
    return false;
  }

  private boolean replaceWord(Table t, long hash, long expected, long replacement) {
    long at = slotOfWord(t, hash, expected);
    if (at >= 0) {
      t.set(at, replacement);
    }
    return at >= 0;
  }

  /**
   * The slot holding exactly {@code word} in {@code hash}'s probe run, or -1: the lookup of the
   * location-only operations, which compare whole slot words (fingerprint and location) and never
   * read a record.
   */
  private static long slotOfWord(Table t, long hash, long word) {
    for (long i = home(t, hash); ; i = (i + 1) & t.mask) {
      long w = t.word(i);
      if (w == EMPTY) {
        return -1;
      }
      if (w == word) {
        return i;
      }
    }
  }

  /**
   * Calls {@code action} with the location of every entry whose fingerprint lies in {@code [from,
   * to)}, in both tables while a migration is in progress, each exactly once; returns the number of
   * slots read. Unlike {@link #get}, this cannot run under an optimistic stamp, since {@code
   * action} sees entries as they are read: the caller holds the shard's read lock for the whole
   * call.
   */
  public long scan(long from, long to, LongConsumer action) {
    if (from < 0 || to > FINGERPRINT_END || from >= to) {
      throw new IllegalArgumentException(
          "fingerprint range ["
              + from
              + ", "
              + to
              + ") is empty or not inside [0, "
              + FINGERPRINT_END
              + ")");
    }
    long read = scanTable(primary, from, to, action);
    Table old = retiring;
    return old == null ? read : read + scanTable(old, from, to, action);
  }

  /**
   * In a table of 2^b slots the entries with a fingerprint in {@code [from, to)} have their homes
   * in {@code [first, first + span]}: the home is the top b bits of the hash and the fingerprint
   * its top 22, so home = floor(fingerprint * 2^b / 2^22) when b <= 22, and the first of the
   * 2^(b-22) homes that share the fingerprint when b > 22. Linear probing keeps an entry at or
   * after its home with no EMPTY slot in between (a MOVED marker is not EMPTY), so walking from
   * {@code first} to the first EMPTY slot at or past {@code first + span}, wrapping like a probe,
   * passes every one of them; the fingerprint filter drops the neighbours. Nothing here depends on
   * insertion order or on where deletions shifted entries.
   */
  private static long scanTable(Table t, long from, long to, LongConsumer action) {
    long first = (from << t.bits) >>> FINGERPRINT_BITS;
    // Unsigned arithmetic: to << bits may be 2^64 (wrapping to 0) for the last range of a 2^42
    // table.
    long span = (((to << t.bits) - 1) >>> FINGERPRINT_BITS) - first;
    long read = 0;
    for (long i = first; read < t.capacity; i = (i + 1) & t.mask) {
      long w = t.word(i);
      read++;
      if (w == EMPTY) {
        if (read > span) {
          break;
        }
      } else if (w != MOVED) {
        long fingerprint = IndexSlotDescriptor.fingerprintOf(w);
        if (fingerprint >= from && fingerprint < to) {
          action.accept(IndexSlotDescriptor.location(w));
        }
      }
    }
    return read;
  }

  /**
   * The location in one slot drawn uniformly from the primary table and the part of the retiring
   * table not yet migrated (the rest holds only MOVED markers), or 0 if that slot is free. Repeated
   * until it finds an entry, this draws every entry with equal probability, in about 1 / load
   * draws. The caller holds the shard's read lock.
   */
  public long probe(RandomGenerator random) {
    return entryAt(random.nextLong(sampledSlots()));
  }

  /**
   * The location of the entry of rank {@code rank} (from 0) in slot order, over the primary table
   * and the part of the retiring one not yet migrated, or 0 if there are not that many. Reads up to
   * every slot: it is for tables too sparse for {@link #probe} to hit, where a rank drawn uniformly
   * below {@link #size} gives every entry the same chance (a walk from a random slot would favour
   * entries after long runs of free slots). Like {@link #probe}, the caller holds the shard's read
   * lock.
   */
  public long entryOfRank(long rank) {
    long total = sampledSlots();
    long seen = 0;
    for (long v = 0; v < total; v++) {
      long location = entryAt(v);
      if (location != 0 && seen++ == rank) {
        return location;
      }
    }
    return 0;
  }

  /**
   * Slots {@link #probe} draws from: the primary table, then the unmigrated part of the retiring
   * one.
   */
  private long sampledSlots() {
    Table old = retiring;
    return primary.capacity + (old == null ? 0 : old.capacity - migrateCursor);
  }

  /** The location in slot {@code v} of the tables as {@link #sampledSlots} numbers them, or 0. */
  private long entryAt(long v) {
    long w =
        v < primary.capacity
            ? primary.word(v)
            : retiring.word(migrateCursor + v - primary.capacity);
    return w == EMPTY || w == MOVED ? 0 : IndexSlotDescriptor.location(w);
  }

  /** Slots in the primary table. */
  public long capacity() {
    return primary.capacity;
  }

  /** Number of keys. */
  public long size() {
    return size;
  }

  /** Off-heap bytes held. */
  public long memoryBytes() {
    Table old = retiring;
    return primary.memory.byteSize() + (old == null ? 0 : old.memory.byteSize());
  }

  /** Calls {@code action} with every stored location. */
  public void forEachLocation(LongConsumer action) {
    forEachIn(primary, action);
    Table old = retiring;
    if (old != null) {
      forEachIn(old, action);
    }
  }

  private static void forEachIn(Table t, LongConsumer action) {
    for (long i = 0; i < t.capacity; i++) {
      long w = t.word(i);
      if (w != EMPTY && w != MOVED) {
        action.accept(IndexSlotDescriptor.location(w));
      }
    }
  }

  /** Finishes any migration, leaving all entries in one table (before a checkpoint). */
  public void completeMigration() {
    while (retiring != null) {
      migrateStep();
    }
  }

  /** The single table's slots; valid after {@link #completeMigration()} until the next write. */
  public MemorySegment slots() {
    if (retiring != null) {
      throw new IllegalStateException("migration in progress");
    }
    return primary.memory;
  }

  private long find(Table t, long hash, MemorySegment source, long offset, long length) {
    return find(t, hash, source, offset, length, keys);
  }

  private long find(
      Table t, long hash, MemorySegment source, long offset, long length, KeyMatch match) {
    long mask = t.mask;
    for (long i = home(t, hash), probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
      long w = t.word(i);
      if (w == EMPTY) {
        return -1;
      }
      if (sameFingerprint(w, hash)
          && match.matches(IndexSlotDescriptor.location(w), source, offset, length)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean sameFingerprint(long word, long hash) {
    return (word >>> LOCATION_BITS) == IndexSlotDescriptor.fingerprint(hash) && word != MOVED;
  }

  private static long home(Table t, long hash) {
    return hash >>> (64 - t.bits);
  }

  /**
   * Home slot of a stored word in {@code t}, from its fingerprint when the table is small enough.
   */
  private long homeOf(Table t, long word) {
    if (t.bits <= DIRECT_HOME_MAX_BITS) {
      return IndexSlotDescriptor.fingerprintOf(word) >>> (DIRECT_HOME_MAX_BITS - t.bits);
    }
    return home(t, keys.hashAt(IndexSlotDescriptor.location(word)));
  }

  private void deleteAndShift(Table t, long hole) {
    long mask = t.mask;
    long i = hole;
    long j = hole;
    while (true) {
      j = (j + 1) & mask;
      long w = t.word(j);
      if (w == EMPTY) {
        break;
      }
      long h = homeOf(t, w);
      // w may fill the hole at i unless its home lies cyclically in (i, j].
      boolean homeBetween = i <= j ? (h > i && h <= j) : (h > i || h <= j);
      if (!homeBetween) {
        t.set(i, w);
        i = j;
      }
    }
    t.set(i, EMPTY);
  }

  private void growIfNeeded() {
    if (size <= primary.capacity * 3 / 4) {
      return;
    }
    completeMigration();
    retiring = primary;
    primary = Table.allocate(retiring.capacity * 2);
    migrateCursor = 0;
  }

  private void migrateStep() {
    Table old = retiring;
    if (old == null) {
      return;
    }
    long stop = Math.min(old.capacity, migrateCursor + MIGRATE_PER_WRITE);
    for (long i = migrateCursor; i < stop; i++) {
      long w = old.word(i);
      if (w != EMPTY && w != MOVED) {
        insertWord(primary, w);
        old.set(i, MOVED);
      }
    }
    migrateCursor = stop;
    if (stop == old.capacity) {
      retiring = null;
      old.free();
    }
  }

  private void insertWord(Table t, long word) {
    long mask = t.mask;
    for (long i = homeOf(t, word); ; i = (i + 1) & mask) {
      if (t.word(i) == EMPTY) {
        t.set(i, word);
        return;
      }
    }
  }

  @Override
  public void close() {
    primary.free();
    if (retiring != null) {
      retiring.free();
    }
  }

  /** One array of slots. */
  private static final class Table {
    final Arena arena;
    final MemorySegment memory;
    final long capacity;
    final long mask;
    final int bits;

    Table(Arena arena, MemorySegment memory) {
      this.arena = arena;
      this.memory = memory;
      this.capacity = memory.byteSize() / IndexSlotDescriptor.BYTES;
      if (Long.bitCount(capacity) != 1) {
        throw new IllegalArgumentException("index capacity " + capacity + " is not a power of two");
      }
      this.mask = capacity - 1;
      this.bits = Long.numberOfTrailingZeros(capacity);
    }

    static Table allocate(long capacity) {
      Arena arena = Arena.ofShared();
      return new Table(
          arena, MemoryAdvice.allocateTable(capacity * IndexSlotDescriptor.BYTES, arena));
    }

    long word(long i) {
      return memory.getAtIndex(ValueLayout.JAVA_LONG, i);
    }

    void set(long i, long w) {
      memory.setAtIndex(ValueLayout.JAVA_LONG, i, w);
    }

    void free() {
      try {
        arena.close();
      } catch (IllegalStateException alreadyClosed) {
        // freed twice on close after a failed open: harmless
      }
    }
  }
}
