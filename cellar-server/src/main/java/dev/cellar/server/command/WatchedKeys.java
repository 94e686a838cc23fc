package dev.cellar.server.command;

import dev.cellar.Cellar;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The keys a client {@code WATCH}es, each with the {@linkplain Cellar#version version} it had then.
 * {@code EXEC} compares them again under the keys' locks: a key written since (by anyone, over any
 * protocol, or deleted, or expired) has another version, and the transaction is not run.
 *
 * <p>One difference from Redis: a key absent at {@code WATCH}, created and deleted again before
 * {@code EXEC}, is absent both times, and the transaction runs; Redis flags it as touched.
 */
final class WatchedKeys {
  private final Map<ByteBuffer, Long> versions = new LinkedHashMap<>();

  /** Watches {@code key} from now on, unless it is watched already (the first version counts). */
  void watch(Cellar store, byte[] key) {
    versions.computeIfAbsent(ByteBuffer.wrap(key), k -> store.version(key));
  }

  /** Whether any watched key has another version now. */
  boolean changed(Cellar store) {
    for (Map.Entry<ByteBuffer, Long> e : versions.entrySet()) {
      if (store.version(e.getKey().array()) != e.getValue()) {
        return true;
      }
    }
    return false;
  }

  Iterable<ByteBuffer> keys() {
    return versions.keySet();
  }

  int size() {
    return versions.size();
  }
}
