package dev.cellar.bench.stores;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Cellar through its embedded API, with {@code fsync no} (the OS writes back; a process crash loses
 * nothing), the expected key count as a sizing hint (as Chronicle Map gets {@code entries(N)}), and
 * every other option at its default: 64 index shards, 64 MiB segments, background compaction and
 * checkpoints on, CRC checked on every read. Batches go through {@code getAll} and {@code putAll},
 * which overlap the cache misses of their keys.
 */
public final class CellarAdapter implements StoreAdapter {
  static final CellarOptions OPTIONS = CellarOptions.defaults().fsync(Fsync.NO);

  private Cellar db;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes) {
    db = Cellar.open(directory, OPTIONS.expectedKeys(expectedEntries));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    db.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return db.get(key);
  }

  @Override
  public void getAll(byte[][] keys, byte[][] values, int count) {
    byte[][] found = db.getAll(count == keys.length ? keys : Arrays.copyOf(keys, count));
    System.arraycopy(found, 0, values, 0, count);
  }

  @Override
  public void putAll(byte[][] keys, byte[][] values, int count) {
    if (count == keys.length && count == values.length) {
      db.putAll(keys, values, Cellar.NO_EXPIRY);
    } else {
      db.putAll(Arrays.copyOf(keys, count), Arrays.copyOf(values, count), Cellar.NO_EXPIRY);
    }
  }

  @Override
  public void close() {
    db.close();
    db = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }
}
