package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarStats;
import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.config.ServerConfig.EvictionPolicy;

/**
 * Enforces {@code maxmemory}. Used memory is the engine's off-heap index plus the live bytes of the
 * log (records not yet known dead): what the data set costs, as Redis's {@code used_memory}
 * counts its data set. It is sampled every 100 ms (the engine sums it over shards and segments,
 * too costly per command) and lowered at once by what this guard evicts.
 *
 * <p>Over the limit, {@code noeviction} refuses commands flagged {@code denyoom}; the other
 * policies delete keys first: {@code allkeys-random} any key, {@code volatile-random} keys with an
 * expiry, {@code volatile-ttl} the key nearest expiry among a sample of five. Keys come from a scan
 * cursor kept between evictions (its order is by hash, so effectively random); the cursor is
 * closed as soon as memory is back under the limit, because an open cursor pins log segments.
 */
public final class MemoryGuard {
  private static final int SAMPLE = 5;
  private static final int MAX_EVICTIONS_PER_COMMAND = 64;

  private final Cellar store;
  private final ServerConfig config;
  private final CommandStats stats;
  private volatile long used;
  private Cursor evictionCursor;

  public MemoryGuard(Cellar store, ServerConfig config, CommandStats stats) {
    this.store = store;
    this.config = config;
    this.stats = stats;
    refresh();
  }

  /** Re-reads used memory from the engine; called every 100 ms. */
  public void refresh() {
    CellarStats s = store.stats();
    used = s.indexBytes() + Math.max(0, s.logBytes() - s.garbageBytes());
    if (used <= config.maxMemory() || config.maxMemory() == 0) {
      closeCursor();
    }
  }

  public long used() {
    return used;
  }

  /** Whether a command that may grow the data set can run now; evicts first if the policy allows. */
  public boolean admit() {
    long max = config.maxMemory();
    if (max == 0 || used <= max) {
      return true;
    }
    EvictionPolicy policy = config.evictionPolicy();
    if (policy == EvictionPolicy.NOEVICTION) {
      return false;
    }
    synchronized (this) {
      for (int i = 0; i < MAX_EVICTIONS_PER_COMMAND && used > max; i++) {
        if (!evictOne(policy)) {
          break;
        }
      }
    }
    return used <= max;
  }

  private boolean evictOne(EvictionPolicy policy) {
    Entry victim = null;
    for (int seen = 0; seen < SAMPLE * 20; seen++) {
      Entry e = nextEntry();
      if (e == null) {
        break;
      }
      boolean volatileKey = e.expireAtEpochMillis() != Cellar.NO_EXPIRY;
      if (policy == EvictionPolicy.ALLKEYS_RANDOM || (policy == EvictionPolicy.VOLATILE_RANDOM && volatileKey)) {
        victim = e;
        break;
      }
      if (policy == EvictionPolicy.VOLATILE_TTL && volatileKey) {
        if (victim == null || e.expireAtEpochMillis() < victim.expireAtEpochMillis()) {
          victim = e;
        }
        if (seen >= SAMPLE) {
          break;
        }
      }
    }
    if (victim == null) {
      return false;
    }
    if (store.delete(victim.key())) {
      stats.evictedKeys.increment();
      used -= victim.key().length + victim.value().length + 32L;
    }
    return true;
  }

  private Entry nextEntry() {
    for (int attempt = 0; attempt < 2; attempt++) {
      if (evictionCursor == null) {
        evictionCursor = store.scan();
      }
      if (evictionCursor.hasNext()) {
        return evictionCursor.next();
      }
      closeCursor();
    }
    return null;
  }

  private synchronized void closeCursor() {
    if (evictionCursor != null) {
      evictionCursor.close();
      evictionCursor = null;
    }
  }
}
