package dev.cellar.server.command;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which strings Redis would call {@code raw} whatever their value: Redis names a string's encoding
 * by how it holds it, and {@code APPEND}, {@code SETRANGE}, {@code SETBIT}, {@code BITFIELD},
 * {@code BITOP} and the HyperLogLog commands leave a string held as a modifiable buffer ({@code
 * raw}), even {@code "12"}, which {@code SET} would have made {@code int}; any later write that
 * replaces the value ({@code SET}, {@code INCR}...) encodes it from the value again. Cellar keeps
 * the value alone, so {@code OBJECT ENCODING} asks this: a key marked with the version (the seq of
 * its record) it had right after such a write is raw while it still has that version; any other
 * write changes the version, and the mark no longer applies.
 *
 * <p>Kept in memory only, as Redis's encodings are (a restart re-encodes from the values, as
 * Redis's reload does), and bounded: past {@link #LIMIT} marks the oldest is forgotten, and that
 * key is then named from its value again. Nothing but {@code OBJECT ENCODING} reads it.
 */
final class RawStrings {
  static final int LIMIT = 16_384;

  private final Map<Object, Long> marks =
      new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Object, Long> eldest) {
          return size() > LIMIT;
        }
      };

  /** A raw-making write to {@code key} (argument of the command) has just been applied. */
  void mark(ServerContext server, byte[] key) {
    long version = server.store().version(key);
    Object name = DatabaseKey.of(server.databaseIndex(), key);
    synchronized (this) {
      marks.remove(name); // re-inserted last, so the newest marks are the last forgotten
      marks.put(name, version);
    }
  }

  /** Whether {@code key} still holds the value a raw-making write left. */
  boolean isRaw(ServerContext server, byte[] key) {
    Object name = DatabaseKey.of(server.databaseIndex(), key);
    Long version;
    synchronized (this) {
      version = marks.get(name);
    }
    if (version == null) {
      return false;
    }
    if (version == server.store().version(key)) {
      return true;
    }
    synchronized (this) {
      marks.remove(name, version);
    }
    return false;
  }
}
