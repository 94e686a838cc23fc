package dev.cellar.server.command;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connected clients, for {@code CLIENT LIST}, {@code INFO clients} and the maxclients limit.
 */
public final class ClientRegistry {
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentHashMap<Long, Session> sessions = new ConcurrentHashMap<>();

  public long nextId() {
    return ids.incrementAndGet();
  }

  public void add(Session s) {
    sessions.put(s.id(), s);
  }

  public void remove(Session s) {
    sessions.remove(s.id());
  }

  /** The client of id {@code id}, or null if it has gone (or never was). */
  public Session find(long id) {
    return sessions.get(id);
  }

  public int count() {
    return sessions.size();
  }

  public Collection<Session> all() {
    return sessions.values().stream()
        .sorted(java.util.Comparator.comparingLong(Session::id))
        .toList();
  }
}
