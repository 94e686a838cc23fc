package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.config.ServerConfig.EvictionPolicy;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Enforces {@code maxmemory}. Used memory is the engine's off-heap index plus the live bytes of the
 * log (records not yet known dead): what the data set costs, as Redis's {@code used_memory} counts
 * its data set. It is sampled every 100 ms (the engine sums it over shards and segments, too costly
 * per command), lowered at once by what this guard evicts, and raised at once by the bytes each
 * write appends to the log ({@link Cellar#appendedBytes}, one field read a store). Without that
 * last part, writes between two samples went uncounted: a fast writer overshot the limit by up to
 * 100 ms of its throughput, and the next sample then asked for more evictions than one command
 * makes, so even {@code allkeys-random} answered -OOM. The appended bytes are what a new key adds
 * to the log, so for new keys the estimate never runs ahead of the next sample: an -OOM it causes
 * is one the sample confirms. They replace the written command's argument bytes, counted before:
 * those missed what a command writes beyond its arguments ({@code SETBIT} at a large offset grows a
 * value by up to 512 MiB from a few bytes of arguments, a collection command writes its header and
 * slots besides the element), so a command after such a write ran before the next sample saw the
 * growth.
 *
 * <p>Over the limit, {@code noeviction} refuses commands flagged {@code denyoom}; the other
 * policies delete keys first: {@code allkeys-random} any key, {@code volatile-random} keys with an
 * expiry, {@code volatile-ttl} the key nearest expiry among a sample of five volatile keys. Keys
 * are drawn with the engine's {@code randomKey} (random index slots: no scan, nothing pinned).
 */
public final class MemoryGuard {
  private static final int SAMPLE = 5;
  private static final int USE_SAMPLE = 16;
  private static final int MAX_EVICTIONS_PER_COMMAND = 64;

  private final dev.cellar.server.db.Databases databases;

  /** The database the last eviction drew from: evictions go round the databases with keys. */
  private int evictFrom;

  private final ServerConfig config;
  private final CommandStats stats;

  /**
   * Estimated bytes of a record and its index slot besides the key and value, freed with an evicted
   * key: the record's framing at its longest.
   */
  private static final long RECORD_OVERHEAD = CellarOptions.RECORD_OVERHEAD_BYTES;

  /** Used memory as of the last {@link #refresh()}, and the stores' appended bytes then. */
  private record Sample(long used, long appended) {}

  /** Replaced whole by {@link #refresh()}, so that a reader never pairs one sample's parts. */
  private volatile Sample sample = new Sample(0, 0);

  /** Bytes this guard's evictions freed since the last sample (event loops and HTTP threads). */
  private final AtomicLong evictedSinceSample = new AtomicLong();

  private final java.util.function.ObjIntConsumer<byte[]> evicted;
  private final java.util.function.Supplier<AccessTracker> tracker;

  /**
   * @param evicted told of each key this guard deletes, and its database (its {@code evicted}
   *     keyspace event)
   */
  public MemoryGuard(
      dev.cellar.server.db.Databases databases,
      ServerConfig config,
      CommandStats stats,
      java.util.function.Supplier<AccessTracker> tracker,
      java.util.function.ObjIntConsumer<byte[]> evicted) {
    this.tracker = tracker;
    this.evicted = evicted;
    this.databases = databases;
    this.config = config;
    this.stats = stats;
    refresh();
  }

  /** Re-reads used memory from the engine; called every 100 ms. */
  public void refresh() {
    // The appended count first: a write between the two reads is then counted twice until the
    // next sample (an estimate a little high), never missed.
    long appended = databases.appendedBytes();
    CellarStats s = databases.stats();
    evictedSinceSample.set(0);
    sample = new Sample(s.indexBytes() + Math.max(0, s.logBytes() - s.garbageBytes()), appended);
  }

  /** Used memory: the last sample, plus what writes appended since, less what evictions freed. */
  public long used() {
    Sample last = sample;
    long grown = Math.max(0, databases.appendedBytes() - last.appended);
    return Math.max(0, last.used + grown - evictedSinceSample.get());
  }

  /**
   * Whether a {@code maxmemory} is set; without one, callers need not size a command to admit it.
   */
  public boolean limited() {
    return config.maxMemory() != 0;
  }

  /**
   * Whether a command that may grow the data set can run now; evicts first if the policy allows. As
   * in Redis, the check is whether memory is over the limit already, not whether this command would
   * take it over; what the command appends is counted as soon as it is in the log.
   */
  public boolean admit() {
    long max = config.maxMemory();
    return max == 0 || used() <= max || makeRoom(max);
  }

  /**
   * Evicts now if used memory is over the limit and the policy allows: as Redis does when {@code
   * CONFIG SET maxmemory} lowers the limit, rather than at the next write.
   */
  public void evictIfOver() {
    long max = config.maxMemory();
    if (max != 0 && used() > max) {
      makeRoom(max);
    }
  }

  /**
   * Evicts until this thread has seen used memory under the limit, and says whether it did. The
   * answer is what this thread's evictions achieved, not a fresh read afterwards: writers on other
   * loops admitted meanwhile (those that found memory under the limit) may take the room just made,
   * and deciding on a re-read turned their admissions into this writer's -OOM. Under {@code
   * allkeys-random}, 20 clients pipelining 64 KiB SETs had got 22 -OOM replies in 10,000 although
   * no eviction had failed. Redis admits the same way: over the limit, evict, then run.
   */
  private boolean makeRoom(long max) {
    EvictionPolicy policy = config.evictionPolicy();
    if (policy == EvictionPolicy.NOEVICTION) {
      return false;
    }
    synchronized (this) {
      boolean under = used() <= max;
      for (int round = 0; round < 2 && !under; round++) {
        if (round > 0) {
          // A round of evictions did not bring the estimate under: read the engine again rather
          // than refuse on a sample that may be stale, as Redis reads its used memory afresh.
          refresh();
          under = used() <= max;
        }
        for (int i = 0; i < MAX_EVICTIONS_PER_COMMAND && !under; i++) {
          if (!evictOne(policy)) {
            return false;
          }
          under = used() <= max;
        }
      }
      return under;
    }
  }

  /**
   * Evicts one key from the next database with keys after the last one evicted from (Redis samples
   * each database in turn too); false if none had a key the policy may take.
   */
  private boolean evictOne(EvictionPolicy policy) {
    java.util.List<Integer> open = databases.openIndexes();
    for (int tried = 0; tried < open.size(); tried++) {
      int index = open.get(Math.floorMod(evictFrom + 1 + tried, open.size()));
      Cellar store = databases.opened(index).store();
      if (store.size() > 0 && evictOne(policy, store, index)) {
        evictFrom = open.indexOf(index);
        return true;
      }
    }
    return false;
  }

  private boolean evictOne(EvictionPolicy policy, Cellar store, int index) {
    byte[] victim =
        policy.lru() || policy.lfu() ? leastUsed(policy, store) : sampled(policy, store);
    if (victim == null) {
      return false;
    }
    Integer size = store.read(victim, v -> (int) v.byteSize());
    if (store.delete(victim)) {
      stats.evictedKeys.increment();
      evicted.accept(victim, index);
      evictedSinceSample.addAndGet(victim.length + (size == null ? 0 : size) + RECORD_OVERHEAD);
    }
    return true;
  }

  /**
   * LRU and LFU: of {@link #USE_SAMPLE} keys drawn (only keys with an expiry for the volatile
   * policies), the one used longest ago, or least often, by the {@link AccessTracker}. Redis draws
   * 5 and keeps a pool of 16 candidates across evictions; drawing 16 each time gives about the same
   * choice without state shared between threads.
   */
  private byte[] leastUsed(EvictionPolicy policy, Cellar store) {
    AccessTracker uses = tracker.get();
    byte[] victim = null;
    long victimScore = Long.MAX_VALUE;
    int seen = 0;
    for (int draw = 0; draw < USE_SAMPLE * 8 && seen < USE_SAMPLE; draw++) {
      byte[] key = store.randomKey();
      if (key == null) {
        break;
      }
      if (policy.volatileOnly()) {
        long expiry = store.expiryOf(key);
        if (expiry == Cellar.ABSENT || expiry == Cellar.NO_EXPIRY) {
          continue;
        }
      }
      seen++;
      long score = policy.lfu() ? uses.frequency(key) : -uses.idleMillis(key);
      if (score < victimScore) {
        victim = key;
        victimScore = score;
      }
    }
    return victim;
  }

  /** The random and TTL policies: a key drawn as {@link #evictOne} describes. */
  private byte[] sampled(EvictionPolicy policy, Cellar store) {
    byte[] victim = null;
    long victimExpiry = Long.MAX_VALUE;
    int volatileSeen = 0;
    for (int draw = 0; draw < SAMPLE * 8; draw++) {
      byte[] key = store.randomKey();
      if (key == null) {
        break;
      }
      if (policy == EvictionPolicy.ALLKEYS_RANDOM) {
        victim = key;
        break;
      }
      long expiry = store.expiryOf(key);
      if (expiry == Cellar.ABSENT || expiry == Cellar.NO_EXPIRY) {
        continue;
      }
      if (policy == EvictionPolicy.VOLATILE_RANDOM) {
        victim = key;
        break;
      }
      if (expiry < victimExpiry) {
        victim = key;
        victimExpiry = expiry;
      }
      if (++volatileSeen >= SAMPLE) {
        break;
      }
    }
    return victim;
  }
}
