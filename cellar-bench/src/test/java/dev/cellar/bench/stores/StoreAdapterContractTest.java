package dev.cellar.bench.stores;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cellar.bench.workload.KeySpace;
import dev.cellar.bench.workload.ValueFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every adapter stores, overwrites, misses and (if persistent) survives a reopen. */
class StoreAdapterContractTest {
  private static final int KEYS = 3_000;

  @ParameterizedTest
  @EnumSource(StoreKind.class)
  void putGetOverwriteReopen(StoreKind kind, @TempDir Path dir) throws Exception {
    KeySpace keys = new KeySpace(KEYS);
    ValueFactory values = new ValueFactory(60);
    StoreAdapter store = kind.newAdapter();
    store.open(dir, KEYS, keys.averageKeyBytes(), values.size());
    for (int n = 0; n < KEYS; n++) {
      store.put(keys.key(n), values.value(n, 0));
    }
    store.endBatch();
    for (int n = 0; n < KEYS; n += 2) {
      store.put(keys.key(n), values.value(n, 1));
    }
    store.endBatch();
    assertContents(store, keys, values);
    if (store.persistent()) {
      store.close();
      store.open(dir, KEYS, keys.averageKeyBytes(), values.size());
      assertContents(store, keys, values);
    }
    store.close();
  }

  @ParameterizedTest
  @EnumSource(StoreKind.class)
  void batchesStoreAndReadWhatSingleCallsWould(StoreKind kind, @TempDir Path dir) throws Exception {
    KeySpace keys = new KeySpace(KEYS);
    ValueFactory values = new ValueFactory(60);
    StoreAdapter store = kind.newAdapter();
    store.open(dir, KEYS, keys.averageKeyBytes(), values.size());
    byte[][] batchKeys = new byte[16][];
    byte[][] batchValues = new byte[16][];
    // Batches of 16, the last one shorter in arrays of 16: count, not the arrays' length, rules.
    for (int n = 0; n < KEYS; n += 16) {
      int count = Math.min(16, KEYS - n);
      for (int i = 0; i < count; i++) {
        batchKeys[i] = keys.key(n + i);
        batchValues[i] = values.value(n + i, 0);
      }
      store.putAll(batchKeys, batchValues, count);
    }
    store.endBatch();
    byte[][] found = new byte[16][];
    for (int n = 0; n < KEYS; n += 8) {
      for (int i = 0; i < 8; i++) {
        batchKeys[2 * i] = keys.key(n + i);
        batchKeys[2 * i + 1] = keys.missKey(n + i);
      }
      store.getAll(batchKeys, found, 16);
      for (int i = 0; i < 8; i++) {
        assertArrayEquals(values.value(n + i, 0), found[2 * i], "key " + (n + i));
        assertNull(found[2 * i + 1], "miss " + (n + i));
      }
    }
    store.endBatch();
    store.close();
  }

  private static void assertContents(StoreAdapter store, KeySpace keys, ValueFactory values) {
    for (int n = 0; n < KEYS; n++) {
      assertArrayEquals(values.value(n, n % 2 == 0 ? 1 : 0), store.get(keys.key(n)), "key " + n);
      assertNull(store.get(keys.missKey(n)));
    }
    store.endBatch();
  }
}
