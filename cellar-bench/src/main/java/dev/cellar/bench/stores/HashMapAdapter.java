package dev.cellar.bench.stores;

import java.nio.file.Path;
import java.util.HashMap;

/**
 * The heap baseline: a {@link HashMap} of {@link ByteKey} to {@code byte[]}, presized for the
 * expected entries. Not thread-safe for writes, which the benchmarks never make concurrently; the
 * two-thread read phase starts after the last write, with thread start as the happens-before edge.
 * It keeps nothing across {@link #close()}.
 */
public final class HashMapAdapter implements StoreAdapter {
  private HashMap<ByteKey, byte[]> map;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes) {
    map = HashMap.newHashMap((int) Math.min(Integer.MAX_VALUE - 8, expectedEntries));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    map.put(new ByteKey(key), value);
  }

  @Override
  public byte[] get(byte[] key) {
    return map.get(new ByteKey(key));
  }

  @Override
  public void close() {
    map = null;
  }

  @Override
  public boolean persistent() {
    return false;
  }
}
