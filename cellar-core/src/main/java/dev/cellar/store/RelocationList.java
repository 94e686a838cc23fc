package dev.cellar.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The index updates a compaction pass owes once its outputs are durable, one per record it copied
 * or expired, kept off the heap in chunks freed when the pass ends.
 *
 * <p>Why off the heap: a pass over a few hundred MiB of log copies around a million live records,
 * and as objects their relocations (about 60 bytes each) outlived every young collection, so each
 * collection copied them and the old generation grew by tens of MiB that stayed resident after the
 * pass. Here an entry is three words and costs the collector nothing.
 *
 * <p>An entry is {@code hash, from, target}. {@code target} packs the output's index in the pass
 * (bits 32 to 62), its offset there plus one (bits 0 to 31; 0 when nothing was written, an expired
 * record that needs no tombstone) and, in bit 63, whether the record expired (its key is removed
 * rather than pointed at a copy). Offsets fit: a segment is at most {@code Integer.MAX_VALUE}
 * bytes.
 *
 * <p>Used by one thread at a time (the pass holds the store's maintenance lock), but not always the
 * same one from pass to pass, so each pass gets its own confined arena.
 */
final class RelocationList {
  private static final long ENTRY_BYTES = 3 * Long.BYTES;
  private static final long CHUNK_ENTRIES = (1 << 20) / ENTRY_BYTES;
  private static final long EXPIRE = 1L << 63;

  private final List<MemorySegment> chunks = new ArrayList<>();
  private Arena arena;
  private long size;

  /**
   * Records a copy of the record at {@code from} to {@code offset} of the pass's {@code output}.
   */
  void addMove(long hash, long from, int output, long offset) {
    add(hash, from, target(output, offset));
  }

  /** Records an expired record; {@code offset} is where its tombstone went, or -1 for none. */
  void addExpiry(long hash, long from, int output, long offset) {
    add(hash, from, EXPIRE | (offset < 0 ? 0 : target(output, offset)));
  }

  long size() {
    return size;
  }

  long hash(long i) {
    return word(i, 0);
  }

  long from(long i) {
    return word(i, 1);
  }

  boolean expired(long i) {
    return (word(i, 2) & EXPIRE) != 0;
  }

  /** The output's index in the pass (meaningless for an expiry without a tombstone). */
  int output(long i) {
    return (int) ((word(i, 2) & ~EXPIRE) >>> 32);
  }

  /** Offset in the output; -1 for an expiry without a tombstone. */
  long offset(long i) {
    return (word(i, 2) & 0xFFFF_FFFFL) - 1;
  }

  /** Frees every chunk; the list is empty and usable again (by any thread). */
  void clear() {
    if (arena != null) {
      arena.close();
      arena = null;
    }
    chunks.clear();
    size = 0;
  }

  private static long target(int output, long offset) {
    if (offset < 0 || offset >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException("offset " + offset + " outside a segment");
    }
    return ((long) output << 32) | (offset + 1);
  }

  private void add(long hash, long from, long target) {
    long within = size % CHUNK_ENTRIES;
    if (within == 0 && size / CHUNK_ENTRIES == chunks.size()) {
      if (arena == null) {
        arena = Arena.ofConfined();
      }
      chunks.add(arena.allocate(CHUNK_ENTRIES * ENTRY_BYTES, Long.BYTES));
    }
    MemorySegment chunk = chunks.get((int) (size / CHUNK_ENTRIES));
    long at = within * ENTRY_BYTES;
    chunk.set(ValueLayout.JAVA_LONG, at, hash);
    chunk.set(ValueLayout.JAVA_LONG, at + Long.BYTES, from);
    chunk.set(ValueLayout.JAVA_LONG, at + 2 * Long.BYTES, target);
    size++;
  }

  private long word(long i, int word) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("relocation " + i + " of " + size);
    }
    return chunks
        .get((int) (i / CHUNK_ENTRIES))
        .get(ValueLayout.JAVA_LONG, (i % CHUNK_ENTRIES) * ENTRY_BYTES + (long) word * Long.BYTES);
  }
}
