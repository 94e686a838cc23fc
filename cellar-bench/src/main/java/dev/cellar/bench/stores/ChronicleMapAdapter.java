package dev.cellar.bench.stores;

import java.io.IOException;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * Chronicle Map persisted to a file (memory-mapped, off-heap), configured as its documentation
 * advises for speed: {@code entries} set to the real count, the key size given as the exact
 * average, values declared constant-size by sample, and {@code put} told not to deserialize and
 * return the previous value. On reopen the builder reads its settings back from the file.
 */
public final class ChronicleMapAdapter implements StoreAdapter {
  private static final String FILE = "chronicle.dat";

  private ChronicleMap<byte[], byte[]> map;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes)
      throws IOException {
    map =
        ChronicleMapBuilder.of(byte[].class, byte[].class)
            .name("cellar-bench")
            .entries(expectedEntries)
            .averageKeySize(averageKeyBytes)
            .constantValueSizeBySample(new byte[valueBytes])
            .putReturnsNull(true)
            .removeReturnsNull(true)
            .createPersistedTo(directory.resolve(FILE).toFile());
  }

  @Override
  public void put(byte[] key, byte[] value) {
    map.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return map.get(key);
  }

  @Override
  public void close() {
    map.close();
    map = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }
}
