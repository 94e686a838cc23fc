package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When each key was last used and how often, approximately: what the LRU and LFU eviction policies
 * and {@code OBJECT IDLETIME}/{@code FREQ} need. Redis keeps 24 bits of this in every object;
 * Cellar's records are immutable log entries, so it is kept beside them, off the heap, in a
 * count-min sketch.
 *
 * <h2>The sketch</h2>
 *
 * A table of 64-bit cells; a key hashes to two of them. Each cell holds a last-access time (32
 * bits, hundredths of a second on a clock that reads 2^30 when the tracker starts: 373 days before
 * it wraps) and Redis's LFU state (a 16-bit time of the last decay in minutes and an 8-bit
 * logarithmic counter). A use of the key updates both cells; a question about the key takes the
 * smaller answer of the two. Keys that share a cell make each other look more recent and more
 * frequent, never less: a cold key may be kept too long, a hot key is never taken for cold. With
 * the table sized at about a cell per 64 bytes of {@code maxmemory} most keys have a cell of their
 * own.
 *
 * <p>A key never used since the tracker started reads as idle since then and with frequency 0, so
 * it is the first to go. Updates are plain writes from any thread: two racing uses may lose one,
 * which only makes a key look a little older.
 *
 * <p>The counter follows Redis's {@code LFULogIncr} (log factor 10: about a million uses to
 * saturate at 255) and {@code LFUDecrAndReturn} (one step down per minute unused), starting at 5
 * for a key first seen, so that new keys are not evicted before they have a chance. (A cell last
 * used under LRU only, with no LFU state, counts up from 0.)
 */
public final class AccessTracker {
  static final int LFU_INIT = 5;
  private static final int LOG_FACTOR = 10;
  private static final long DECAY_MINUTES = 1;

  private final MemorySegment cells;
  private final long mask;
  private final long startMillis = System.currentTimeMillis();

  /**
   * A table of {@code 2^bits} cells ({@code 8 * 2^bits} bytes off the heap, for the server's life).
   */
  AccessTracker(int bits) {
    this.cells = Arena.ofAuto().allocate(8L << bits, 8);
    this.mask = (1L << bits) - 1;
  }

  /**
   * The table size for a {@code maxmemory} of {@code bytes}: a cell per 64 bytes, within bounds.
   */
  static int bitsFor(long maxMemory) {
    long wanted = maxMemory == 0 ? 1L << 20 : Math.max(1L << 16, maxMemory / 64);
    return Math.min(23, 64 - Long.numberOfLeadingZeros(wanted - 1));
  }

  /** Commands that look at a key without using it, as Redis's {@code LOOKUP_NOTOUCH} ones. */
  private static final java.util.Set<String> NO_TOUCH =
      java.util.Set.of(
          "object", "type", "ttl", "pttl", "expiretime", "pexpiretime", "exists", "lcs");

  /** Most keys one {@link #touchRun} takes; a run with more is recorded in several. */
  public static final int RUN = 64;

  /**
   * Records a use of every key the {@code count} requests name (their key positions as {@code
   * COMMAND} reports them; none for a request that is not a known command or does not use its
   * keys). The cells' misses are overlapped: every hash is computed first, then every cell read,
   * then every cell written, so a pipelined run pays about one memory latency instead of two per
   * key (per key, one at a time, the tracker cost GETs a quarter of their throughput).
   *
   * @return a digest of the cells read, for the caller to keep: the reads must not be optimised
   *     away, and a field of this shared tracker written by every event loop would bounce its cache
   *     line between cores
   */
  public long touchRun(
      CommandTable commands, Request[] requests, int count, boolean lfu, long[] hashes) {
    int n = 0;
    long digest = 0;
    for (int q = 0; q < count; q++) {
      Request r = requests[q];
      CommandSpec spec = commands.find(r);
      if (spec == null || spec.firstKey() <= 0 || NO_TOUCH.contains(spec.name())) {
        continue;
      }
      int last = spec.lastKeyIndex(r.argc());
      for (int i = spec.firstKey(); i <= last && i < r.argc(); i += Math.max(1, spec.step())) {
        if (n == RUN) {
          digest += record(hashes, n, lfu);
          n = 0;
        }
        hashes[n++] = hash(r.buffer(), r.offset(i), r.length(i));
      }
    }
    return digest + record(hashes, n, lfu);
  }

  /** Records the uses of {@code n} hashed keys; returns the sum of the cells read first. */
  private long record(long[] hashes, int n, boolean lfu) {
    long ticks = ticksNow();
    long minutes = minutesNow();
    long touched = 0;
    for (int k = 0; k < n; k++) {
      // Independent loads: their misses overlap; the sum keeps them from being dropped.
      touched += cells.getAtIndex(ValueLayout.JAVA_LONG, hashes[k] & mask);
      touched += cells.getAtIndex(ValueLayout.JAVA_LONG, (hashes[k] >>> 32) & mask);
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int k = 0; k < n; k++) {
      // One draw a use, for both cells: they count the same use.
      long draw = lfu ? random.nextLong() >>> 1 : 0;
      update(hashes[k] & mask, ticks, minutes, lfu, draw);
      update((hashes[k] >>> 32) & mask, ticks, minutes, lfu, draw);
    }
    return touched;
  }

  private void update(long i, long ticks, long minutes, boolean lfu, long draw) {
    long cell = cells.getAtIndex(ValueLayout.JAVA_LONG, i);
    long counter = cell & 0xFF;
    long decayTime = (cell >>> 8) & 0xFFFF;
    if (lfu) {
      // A cell never used starts at LFU_INIT, as Redis starts a new key; later uses count up.
      counter = cell == 0 ? LFU_INIT : increment(decayed(counter, decayTime, minutes), draw);
      decayTime = minutes & 0xFFFF;
    }
    cells.setAtIndex(ValueLayout.JAVA_LONG, i, (ticks << 24) | (decayTime << 8) | counter);
  }

  /** Milliseconds since the key's last use (or since the tracker started, if never), to 10 ms. */
  long idleMillis(byte[] key) {
    long h = hash(key, 0, key.length);
    long last =
        Math.min(
            cells.getAtIndex(ValueLayout.JAVA_LONG, h & mask) >>> 24,
            cells.getAtIndex(ValueLayout.JAVA_LONG, (h >>> 32) & mask) >>> 24);
    return Math.max(0, ticksNow() - (last == 0 ? START_TICKS : last)) * 10;
  }

  /**
   * {@code RESTORE ... IDLETIME}: the key's cells say it was last used {@code idleMillis} ago (at
   * most {@link #MAX_IDLE_MILLIS}, about 124 days, as Redis's 24-bit LRU clock bounds its idle
   * times too). A key sharing a cell looks older with it until its next use: the one way the sketch
   * can make a key look older than it is, and only on a restore's say-so.
   */
  void restoreIdle(byte[] key, long idleMillis) {
    long h = hash(key, 0, key.length);
    long ticks = Math.max(1, ticksNow() - Math.min(idleMillis, MAX_IDLE_MILLIS) / 10);
    for (long i : new long[] {h & mask, (h >>> 32) & mask}) {
      long cell = cells.getAtIndex(ValueLayout.JAVA_LONG, i);
      cells.setAtIndex(ValueLayout.JAVA_LONG, i, (ticks << 24) | (cell & 0xFF_FFFFL));
    }
  }

  /** {@code RESTORE ... FREQ}: the key's use counter is {@code frequency} (0 to 255), as of now. */
  void restoreFrequency(byte[] key, int frequency) {
    long h = hash(key, 0, key.length);
    long cell = (ticksNow() << 24) | ((minutesNow() & 0xFFFF) << 8) | (frequency & 0xFF);
    cells.setAtIndex(ValueLayout.JAVA_LONG, h & mask, cell);
    cells.setAtIndex(ValueLayout.JAVA_LONG, (h >>> 32) & mask, cell);
  }

  /** The key's logarithmic use count, decayed to now: Redis's {@code OBJECT FREQ}. */
  int frequency(byte[] key) {
    long h = hash(key, 0, key.length);
    long minutes = minutesNow();
    return (int)
        Math.min(
            frequencyOf(cells.getAtIndex(ValueLayout.JAVA_LONG, h & mask), minutes),
            frequencyOf(cells.getAtIndex(ValueLayout.JAVA_LONG, (h >>> 32) & mask), minutes));
  }

  private static long frequencyOf(long cell, long minutes) {
    return decayed(cell & 0xFF, (cell >>> 8) & 0xFFFF, minutes);
  }

  /** Redis's {@code LFUDecrAndReturn}: a step down per period unused. */
  private static long decayed(long counter, long decayTime, long minutes) {
    long elapsed = (minutes - decayTime) & 0xFFFF; // 16-bit minutes wrap, as Redis's do
    long periods = elapsed / DECAY_MINUTES;
    return periods >= counter ? 0 : counter - periods;
  }

  /**
   * Redis's {@code LFULogIncr}: a count of c goes up with probability 1 / ((c - 5) * 10 + 1), so
   * the likelier, the smaller the count. The probabilities are a table of thresholds for a uniform
   * 63-bit draw: no floating point per use.
   */
  private static long increment(long counter, long draw) {
    return counter < 255 && draw < INCREMENT_BELOW[(int) counter] ? counter + 1 : counter;
  }

  private static final long[] INCREMENT_BELOW = new long[256];

  static {
    for (int c = 0; c < 256; c++) {
      double p = 1.0 / (Math.max(0, c - LFU_INIT) * LOG_FACTOR + 1);
      INCREMENT_BELOW[c] = p >= 1 ? Long.MAX_VALUE : (long) (p * Long.MAX_VALUE);
    }
  }

  /**
   * The clock's reading when the tracker started: hundredths of a second, 2^30 of them (about 124
   * days) above 0, so that a restore can date a key's last use to before the start ({@link
   * #restoreIdle}). A cell's 0 means never used, and reads as used at the start.
   */
  private static final long START_TICKS = 1L << 30;

  /** The longest idle time {@link #restoreIdle} sets: all the clock has below its start. */
  static final long MAX_IDLE_MILLIS = (START_TICKS - 1) * 10;

  /** Hundredths of a second since the start, from {@link #START_TICKS}. */
  private long ticksNow() {
    return ((System.currentTimeMillis() - startMillis) / 10 + START_TICKS) & 0xFFFF_FFFFL;
  }

  private static long minutesNow() {
    return (System.currentTimeMillis() / 60_000) & 0xFFFF;
  }

  /** A 64-bit hash of the key (FNV-1a, then a finaliser): two cell indexes from its halves. */
  private static long hash(byte[] b, int offset, int length) {
    long h = 0xcbf29ce484222325L;
    for (int i = offset; i < offset + length; i++) {
      h = (h ^ (b[i] & 0xFF)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }
}
