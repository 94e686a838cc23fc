package dev.cellar.server.command;

import dev.cellar.Cellar;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The keys a client {@code WATCH}es, each with the {@linkplain Cellar#version version} it had then.
 * {@code EXEC} compares them again under the keys' locks: a key written since (by anyone, over any
 * protocol, or deleted, or expired) has another version, and the transaction is not run.
 *
 * <p>Versions see every write that changed a key; {@link Watches} adds what Redis counts besides (a
 * key created and deleted again, a write that changed nothing).
 */
final class WatchedKeys {
  /** By {@link DatabaseKey}: a key is watched in the database selected when it was watched. */
  private final Map<Object, Long> versions = new LinkedHashMap<>();

  /**
   * {@code s} watches {@code key} from now on, unless it does already (the first version counts),
   * also in the server's {@link Watches}, for commands that touch keys without changing them.
   */
  void watch(Session s, byte[] key) {
    Object k = DatabaseKey.of(s.server().databaseIndex(), key);
    if (!versions.containsKey(k)) {
      s.server().watches().watch(s, k);
      versions.put(k, s.server().store().version(key));
    }
  }

  /** Whether any watched key was touched or has another version now. */
  boolean changed(Session s) {
    if (s.watchedKeyTouched()) {
      return true;
    }
    for (Map.Entry<Object, Long> e : versions.entrySet()) {
      Cellar store = s.server().databases().get(DatabaseKey.database(e.getKey())).store();
      if (store.version(DatabaseKey.bytes(e.getKey())) != e.getValue()) {
        return true;
      }
    }
    return false;
  }

  /** The watched keys, as {@link DatabaseKey#of} names them. */
  Iterable<Object> keys() {
    return versions.keySet();
  }

  int size() {
    return versions.size();
  }
}
