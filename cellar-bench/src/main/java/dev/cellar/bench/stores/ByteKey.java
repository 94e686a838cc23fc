package dev.cellar.bench.stores;

import java.util.Arrays;

/**
 * A byte-array key for {@link java.util.HashMap}, with content equality and the hash computed once,
 * as {@link String} caches its own. The fair choice for the heap baseline: the workload arrives as
 * bytes, and {@code String} keys would add a decode per operation.
 */
final class ByteKey {
  private final byte[] bytes;
  private final int hash;

  ByteKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ByteKey key && hash == key.hash && Arrays.equals(bytes, key.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
