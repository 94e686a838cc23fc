package dev.cellar.cache;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An off-heap cache of fixed-size file blocks, for a store that reads its sealed segments with
 * {@code O_DIRECT} and so has no page cache under it: the one place data read from disk is kept.
 *
 * <h2>Policy: S3-FIFO</h2>
 *
 * Chosen by simulation on skewed traces (docs/benchmarks.md, "read cache policy"): it missed 13 to
 * 16% less than LRU on Zipf traces and 21 to 30% less after a scan, since a block read once by a
 * scan never leaves the small queue. Each partition runs it on its own share of the blocks: a small
 * FIFO of about a tenth of the slots that new blocks enter, a main FIFO for the rest, and a ghost
 * FIFO of the keys recently evicted from the small queue. A hit raises the block's counter (at most
 * 3). Eviction takes the small queue's oldest block while that queue holds its tenth: a block hit
 * while there moves to the main queue, one that was not is evicted and remembered by the ghost.
 * Otherwise it takes the main queue's oldest: a block with a nonzero counter goes back with its
 * counter lowered, the first without one is evicted. A miss on a key the ghost remembers enters the
 * main queue directly. No hit moves anything: a hit is a counter increment under the partition's
 * lock, cheaper than LRU's list surgery.
 *
 * <p>A block read ahead of its reader ({@link #insert}) has not been read yet when it enters the
 * small queue, and a batch may read ahead more blocks than that queue's tenth holds: by the rule
 * alone, the batch's first blocks would be evicted by its last before their reader came, and read
 * again. So until a read hits it, such a block is not counted in the small queue's tenth and its
 * eviction passes over it (back to the tail): the main queue gives up blocks meanwhile. Only a
 * cache holding nothing but unread read-ahead blocks evicts one of them.
 *
 * <h2>Concurrency</h2>
 *
 * Blocks are spread over partitions by a hash of their key, each with its own lock; a read copies
 * its bytes out under the lock, so no reader sees a slot reused under it. A miss loads the block
 * outside the lock (the disk read is the slow part), then takes the lock to insert it; two threads
 * missing the same block both read it, and the second finds it inserted and copies from the cache.
 *
 * <p>Keys are a file's cache id ({@link #newFileId}) and a block index: a file that is deleted and
 * another that reuses its name never share blocks, and a deleted file's blocks simply age out.
 */
public final class BlockCache implements AutoCloseable {
  public static final int BLOCK_BYTES = 4096;

  /** Loads one block of a file into {@code into} (aligned, {@link #BLOCK_BYTES}). */
  public interface BlockLoader {
    /** Reads block {@code index}; bytes past the file's end must be left zero. */
    void load(long index, MemorySegment into) throws IOException;
  }

  private static final java.util.concurrent.atomic.AtomicLong FILE_IDS =
      new java.util.concurrent.atomic.AtomicLong();

  private final Arena arena = Arena.ofShared();
  private final Partition[] partitions;
  private final int partitionMask;

  private final ThreadLocal<MemorySegment> loadBuffer;

  /** A cache of about {@code bytes}, in blocks of {@link #BLOCK_BYTES}; at least 16 blocks. */
  public BlockCache(long bytes) {
    long blocks = Math.max(16, bytes / BLOCK_BYTES);
    int count = Integer.highestOneBit((int) Math.min(64, Math.max(1, blocks / 256)));
    partitions = new Partition[count];
    partitionMask = count - 1;
    int perPartition = (int) Math.min(Integer.MAX_VALUE / 2, blocks / count);
    for (int i = 0; i < count; i++) {
      partitions[i] =
          new Partition(
              perPartition, arena.allocate((long) perPartition * BLOCK_BYTES, BLOCK_BYTES));
    }
    loadBuffer = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(BLOCK_BYTES, BLOCK_BYTES));
  }

  /** A cache id for a file opened now: never reused within this JVM. */
  public static long newFileId() {
    return FILE_IDS.incrementAndGet();
  }

  /** The blocks the cache holds at most. */
  public long capacityBlocks() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.capacity;
    }
    return n;
  }

  /**
   * Copies {@code length} bytes of file {@code fileId} from {@code position} into {@code dst} at
   * {@code dstOffset}, from cached blocks, loading the missing ones with {@code loader}.
   */
  public void read(
      long fileId,
      long position,
      MemorySegment dst,
      long dstOffset,
      long length,
      BlockLoader loader)
      throws IOException {
    long end = position + length;
    while (position < end) {
      long index = position / BLOCK_BYTES;
      int within = (int) (position - index * BLOCK_BYTES);
      int n = (int) Math.min(BLOCK_BYTES - within, end - position);
      long key = key(fileId, index);
      Partition p = partitions[spread(key) & partitionMask];
      if (!p.copyIfPresent(key, within, dst, dstOffset, n)) {
        MemorySegment buffer = loadBuffer.get();
        buffer.fill((byte) 0);
        loader.load(index, buffer);
        p.insertAndCopy(key, buffer, within, dst, dstOffset, n);
      }
      position += n;
      dstOffset += n;
    }
  }

  /** Whether block {@code index} of file {@code fileId} is cached; counts neither hit nor miss. */
  public boolean contains(long fileId, long index) {
    long key = key(fileId, index);
    return partitions[spread(key) & partitionMask].contains(key);
  }

  /**
   * Caches {@code block} ({@link #BLOCK_BYTES}) as block {@code index} of file {@code fileId},
   * unless it is cached already: for reads done ahead of their readers ({@code
   * dev.cellar.io.BlockReads}).
   */
  public void insert(long fileId, long index, MemorySegment block) {
    long key = key(fileId, index);
    partitions[spread(key) & partitionMask].insert(key, block);
  }

  /** Hits and misses since the cache was made. */
  public long hits() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.hits;
    }
    return n;
  }

  public long misses() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.misses;
    }
    return n;
  }

  /** The misses that were read ahead of their readers ({@link #insert}): counted in misses too. */
  public long readAhead() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.readAhead;
    }
    return n;
  }

  @Override
  public void close() {
    arena.close();
  }

  private static long key(long fileId, long index) {
    return (fileId << 24) ^ index ^ (fileId >>> 40);
  }

  private static int spread(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** One partition's slots, index and queues, under its lock. */
  private static final class Partition {
    final int capacity;
    final MemorySegment blocks;
    final ReentrantLock lock = new ReentrantLock();

    /** Slot to key, and its hit counter. */
    final long[] slotKey;

    final byte[] freq;

    /** Slot to whether it was read ahead into the small queue and not yet hit: spared there. */
    final boolean[] ahead;

    /** How many of the small queue's slots are {@link #ahead}. */
    int aheadInSmall;

    /** Linear-probing index: key to slot + 1 (0 empty); deletion shifts entries back. */
    final long[] indexKeys;

    final int[] indexSlots;
    final int indexMask;

    final IntQueue small;
    final IntQueue main;
    final int smallTarget;
    final GhostQueue ghost;
    int used;
    long hits;
    long misses;
    long readAhead;

    Partition(int capacity, MemorySegment blocks) {
      this.capacity = capacity;
      this.blocks = blocks;
      slotKey = new long[capacity];
      freq = new byte[capacity];
      ahead = new boolean[capacity];
      int tableSize = Integer.highestOneBit(Math.max(4, capacity) * 2) * 2;
      indexKeys = new long[tableSize];
      indexSlots = new int[tableSize];
      indexMask = tableSize - 1;
      smallTarget = Math.max(1, capacity / 10);
      small = new IntQueue(capacity);
      main = new IntQueue(capacity);
      ghost = new GhostQueue(Math.max(1, capacity - smallTarget));
    }

    boolean contains(long key) {
      lock.lock();
      try {
        return find(key) >= 0;
      } finally {
        lock.unlock();
      }
    }

    boolean copyIfPresent(long key, int within, MemorySegment dst, long dstOffset, int n) {
      lock.lock();
      try {
        int slot = find(key);
        if (slot < 0) {
          misses++;
          return false;
        }
        hits++;
        read(slot);
        if (freq[slot] < 3) {
          freq[slot]++;
        }
        MemorySegment.copy(blocks, (long) slot * BLOCK_BYTES + within, dst, dstOffset, n);
        return true;
      } finally {
        lock.unlock();
      }
    }

    void insert(long key, MemorySegment block) {
      lock.lock();
      try {
        if (find(key) < 0) {
          misses++; // read ahead of the reader, which will count a hit
          readAhead++;
          store(key, block, true);
        }
      } finally {
        lock.unlock();
      }
    }

    void insertAndCopy(
        long key, MemorySegment block, int within, MemorySegment dst, long dstOffset, int n) {
      lock.lock();
      try {
        int slot = find(key);
        if (slot < 0) {
          slot = store(key, block, false);
        } else {
          read(slot); // whoever read it ahead, its reader has come
        }
        MemorySegment.copy(blocks, (long) slot * BLOCK_BYTES + within, dst, dstOffset, n);
      } finally {
        lock.unlock();
      }
    }

    /** A read reached {@code slot}: no longer spared as read ahead. Under the lock. */
    private void read(int slot) {
      if (ahead[slot]) {
        ahead[slot] = false;
        aheadInSmall--;
      }
    }

    /**
     * Puts {@code block} in a slot (freeing one if full), {@code readAhead} of its reader; returns
     * the slot. Under the lock.
     */
    private int store(long key, MemorySegment block, boolean readAhead) {
      int slot = used < capacity ? used++ : evict();
      MemorySegment.copy(block, 0, blocks, (long) slot * BLOCK_BYTES, BLOCK_BYTES);
      slotKey[slot] = key;
      freq[slot] = 0;
      put(key, slot);
      if (ghost.remove(key)) {
        main.add(slot);
      } else {
        small.add(slot);
        if (readAhead) {
          ahead[slot] = true;
          aheadInSmall++;
        }
      }
      return slot;
    }

    /** Frees one slot by the S3-FIFO rule and returns it. */
    private int evict() {
      while (true) {
        int counted = small.size() - aheadInSmall;
        if (counted >= smallTarget || main.isEmpty()) {
          int slot = small.poll();
          if (freq[slot] > 0) {
            freq[slot] = 0;
            main.add(slot);
            continue;
          }
          if (ahead[slot]) {
            if (counted > 0 || !main.isEmpty()) {
              small.add(slot); // its reader has not come yet: another block goes first
              continue;
            }
            ahead[slot] = false; // nothing else left to evict
            aheadInSmall--;
          }
          ghost.add(slotKey[slot]);
          remove(slotKey[slot]);
          return slot;
        }
        int slot = main.poll();
        if (freq[slot] > 0) {
          freq[slot]--;
          main.add(slot);
          continue;
        }
        remove(slotKey[slot]);
        return slot;
      }
    }

    private int find(long key) {
      for (int i = spread(key) & indexMask; ; i = (i + 1) & indexMask) {
        int s = indexSlots[i];
        if (s == 0) {
          return -1;
        }
        if (indexKeys[i] == key) {
          return s - 1;
        }
      }
    }

    private void put(long key, int slot) {
      for (int i = spread(key) & indexMask; ; i = (i + 1) & indexMask) {
        if (indexSlots[i] == 0) {
          indexKeys[i] = key;
          indexSlots[i] = slot + 1;
          return;
        }
      }
    }

    /**
     * Removes {@code key} by shifting the entries after it back (no tombstones: a table churned by
     * evictions would fill with them, and every miss would probe it end to end).
     */
    private void remove(long key) {
      int i = spread(key) & indexMask;
      while (indexSlots[i] != 0 && indexKeys[i] != key) {
        i = (i + 1) & indexMask;
      }
      if (indexSlots[i] == 0) {
        return;
      }
      int hole = i;
      for (int j = (hole + 1) & indexMask; indexSlots[j] != 0; j = (j + 1) & indexMask) {
        int home = spread(indexKeys[j]) & indexMask;
        // Entry j may fill the hole if its home is not cyclically in (hole, j].
        boolean between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
          indexKeys[hole] = indexKeys[j];
          indexSlots[hole] = indexSlots[j];
          hole = j;
        }
      }
      indexSlots[hole] = 0;
    }
  }

  /** A bounded FIFO of slot numbers. */
  private static final class IntQueue {
    private final int[] ring;
    private int head;
    private int size;

    IntQueue(int capacity) {
      ring = new int[Math.max(1, capacity)];
    }

    void add(int v) {
      ring[(head + size) % ring.length] = v;
      size++;
    }

    int poll() {
      int v = ring[head];
      head = (head + 1) % ring.length;
      size--;
      return v;
    }

    int size() {
      return size;
    }

    boolean isEmpty() {
      return size == 0;
    }
  }

  /** Keys recently evicted from the small queue, the oldest forgotten first. */
  private static final class GhostQueue {
    private final long[] ring;
    private final java.util.HashSet<Long> members;
    private int head;
    private int size;

    GhostQueue(int capacity) {
      ring = new long[capacity];
      members = new java.util.HashSet<>(capacity * 2);
    }

    void add(long key) {
      if (size == ring.length) {
        members.remove(ring[head]);
        head = (head + 1) % ring.length;
        size--;
      }
      ring[(head + size) % ring.length] = key;
      size++;
      members.add(key);
    }

    /** Forgets {@code key} if remembered; returns whether it was (its ring entry stays, stale). */
    boolean remove(long key) {
      return members.remove(key);
    }
  }
}
