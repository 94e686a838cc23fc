package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who watches which key, so that a command can touch the keys it modifies as Redis's {@code
 * signalModifiedKey} does, marking every client watching one for an EXEC that fails. Record
 * versions ({@link WatchedKeys}) catch every write that changed a key, from any protocol; touches
 * add what versions cannot see: a write that changed nothing but counts for Redis (an APPEND of
 * nothing), and a key created and deleted again.
 *
 * <p>Commands touch where they publish a keyspace event ({@link KeyspaceEvents}, whose events are
 * Redis's, checked against redis-server): Redis signals a modified key where it notifies. With no
 * key watched (the usual case) a touch costs one read of a counter.
 */
final class Watches {
  private final ConcurrentHashMap<Object, Set<Session>> byKey = new ConcurrentHashMap<>();
  private final AtomicInteger watchedKeys = new AtomicInteger();
  private final ServerContext server;

  /** Keys are named in the current database of {@code server} ({@link DatabaseKey}). */
  Watches(ServerContext server) {
    this.server = server;
  }

  /** {@code s} watches {@code key}, named by {@link DatabaseKey#of}. */
  void watch(Session s, Object key) {
    byKey.compute(
        key,
        (k, sessions) -> {
          if (sessions == null) {
            sessions = ConcurrentHashMap.newKeySet();
            watchedKeys.incrementAndGet();
          }
          sessions.add(s);
          return sessions;
        });
  }

  /** Forgets {@code s}'s watches of {@code keys}. */
  void unwatch(Session s, Iterable<Object> keys) {
    for (Object key : keys) {
      byKey.computeIfPresent(
          key,
          (k, sessions) -> {
            sessions.remove(s);
            if (sessions.isEmpty()) {
              watchedKeys.decrementAndGet();
              return null;
            }
            return sessions;
          });
    }
  }

  /** A command modified {@code key} of the current database: its watchers' next EXEC fails. */
  void touch(byte[] key) {
    if (watchedKeys.get() == 0) {
      return;
    }
    Set<Session> sessions = byKey.get(DatabaseKey.of(server.databaseIndex(), key));
    if (sessions != null) {
      for (Session s : sessions) {
        s.watchTouched();
      }
    }
  }

  /** {@link #touch(byte[])} of argument {@code i}, copied only when some key is watched. */
  void touch(Request r, int i) {
    if (watchedKeys.get() != 0) {
      touch(r.bytes(i));
    }
  }
}
