package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarStats;
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
 * expiry, {@code volatile-ttl} the key nearest expiry among a sample of five volatile keys. Keys
 * are drawn with the engine's {@code randomKey} (random index slots: no scan, nothing pinned).
 */
public final class MemoryGuard {
  private static final int SAMPLE = 5;
  private static final int MAX_EVICTIONS_PER_COMMAND = 64;

  private final Cellar store;
  private final ServerConfig config;
  private final CommandStats stats;
  private volatile long used;

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
    if (victim == null) {
      return false;
    }
    Integer size = store.read(victim, v -> (int) v.byteSize());
    if (store.delete(victim)) {
      stats.evictedKeys.increment();
      used -= victim.length + (size == null ? 0 : size) + 32L;
    }
    return true;
  }
}
