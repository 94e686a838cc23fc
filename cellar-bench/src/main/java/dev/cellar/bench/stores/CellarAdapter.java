package dev.cellar.bench.stores;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.nio.file.Path;

/**
 * Cellar through its embedded API, with {@code fsync no} (the OS writes back; a process crash loses
 * nothing), the expected key count as a sizing hint (as Chronicle Map gets {@code entries(N)}), and
 * every other option at its default: 64 index shards, 64 MiB segments, background compaction and
 * checkpoints on, CRC checked on every read.
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
  public void close() {
    db.close();
    db = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }
}
