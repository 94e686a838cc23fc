package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;
import static dev.cellar.server.config.KeyspaceEventFlags.NEW;

import dev.cellar.Cellar;
import dev.cellar.ScanPage;
import dev.cellar.WriteBatch;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.config.Glob;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Redis's generic key commands: existence, deletion, renaming, expiry, iteration. */
final class KeyspaceCommands {
  private KeyspaceCommands() {}

  static void register(CommandTable t) {
    t.add(
            "del",
            -2,
            "write",
            1,
            -1,
            1,
            "generic",
            "Deletes one or more keys.",
            KeyspaceCommands::del)
        .add(
            "unlink",
            -2,
            "write fast",
            1,
            -1,
            1,
            "generic",
            "Asynchronously deletes one or more keys.",
            KeyspaceCommands::del)
        .add(
            "exists",
            -2,
            "readonly fast",
            1,
            -1,
            1,
            "generic",
            "Determines whether one or more keys exist.",
            KeyspaceCommands::exists)
        .add(
            "touch",
            -2,
            "readonly fast",
            1,
            -1,
            1,
            "generic",
            "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
            KeyspaceCommands::exists)
        .add(
            "type",
            2,
            "readonly fast",
            1,
            1,
            1,
            "generic",
            "Determines the type of value stored at a key.",
            KeyspaceCommands::type)
        .add(
            "rename",
            3,
            "write",
            1,
            2,
            1,
            "generic",
            "Renames a key and overwrites the destination.",
            (s, r, o) -> rename(s, r, o, false))
        .add(
            "renamenx",
            3,
            "write fast",
            1,
            2,
            1,
            "generic",
            "Renames a key only when the target key name doesn't exist.",
            (s, r, o) -> rename(s, r, o, true))
        .add(
            "expire",
            -3,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Sets the expiration time of a key in seconds.",
            (s, r, o) -> expire(s, r, o, 1000, true, "expire"))
        .add(
            "pexpire",
            -3,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Sets the expiration time of a key in milliseconds.",
            (s, r, o) -> expire(s, r, o, 1, true, "pexpire"))
        .add(
            "expireat",
            -3,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Sets the expiration time of a key to a Unix timestamp.",
            (s, r, o) -> expire(s, r, o, 1000, false, "expireat"))
        .add(
            "pexpireat",
            -3,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Sets the expiration time of a key to a Unix milliseconds timestamp.",
            (s, r, o) -> expire(s, r, o, 1, false, "pexpireat"))
        .add(
            "expiretime",
            2,
            "readonly fast",
            1,
            1,
            1,
            "generic",
            "Returns the expiration time of a key as a Unix timestamp.",
            (s, r, o) -> expireTime(s, r, o, 1000))
        .add(
            "pexpiretime",
            2,
            "readonly fast",
            1,
            1,
            1,
            "generic",
            "Returns the expiration time of a key as a Unix milliseconds timestamp.",
            (s, r, o) -> expireTime(s, r, o, 1))
        .add(
            "ttl",
            2,
            "readonly fast",
            1,
            1,
            1,
            "generic",
            "Returns the expiration time in seconds of a key.",
            (s, r, o) -> ttl(s, r, o, 1000))
        .add(
            "pttl",
            2,
            "readonly fast",
            1,
            1,
            1,
            "generic",
            "Returns the expiration time in milliseconds of a key.",
            (s, r, o) -> ttl(s, r, o, 1))
        .add(
            "persist",
            2,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Removes the expiration time of a key.",
            KeyspaceCommands::persist)
        .add(
            "keys",
            2,
            "readonly",
            0,
            0,
            0,
            "generic",
            "Returns all key names that match a pattern.",
            KeyspaceCommands::keys)
        .add(
            "scan",
            -2,
            "readonly",
            0,
            0,
            0,
            "generic",
            "Iterates over the key names in the database.",
            KeyspaceCommands::scan)
        .add(
            "randomkey",
            1,
            "readonly",
            0,
            0,
            0,
            "generic",
            "Returns a random key name from the database.",
            KeyspaceCommands::randomKey);
  }

  static void del(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    long removed = 0;
    for (int i = 1; i < r.argc(); i++) {
      int stripe = stripe(r, i);
      server.locks().lock(stripe);
      try {
        if (server.store().delete(r.segment(i))) {
          removed++;
          KeyspaceEvents.notify(server, GENERIC, "del", r, i);
        }
      } finally {
        server.locks().unlock(stripe);
      }
    }
    out.integer(removed);
  }

  static void exists(Session s, Request r, ReplyWriter out) {
    long found = 0;
    for (int i = 1; i < r.argc(); i++) {
      if (s.server().store().expiryOf(r.segment(i)) != Cellar.ABSENT) {
        found++;
      } else {
        KeyspaceEvents.miss(s.server(), r, i);
      }
    }
    out.integer(found);
  }

  static void type(Session s, Request r, ReplyWriter out) {
    String type = CollectionKeys.typeName(s.server().store(), r.segment(1));
    if (type.equals("none")) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    out.simple(type);
  }

  static void rename(Session s, Request r, ReplyWriter out, boolean onlyIfAbsent) {
    ServerContext server = s.server();
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      MemorySegment from = r.segment(1);
      MemorySegment to = r.segment(2);
      Values.AnyCurrent current = Values.anyCurrent(server.store(), from);
      if (current == null) {
        throw CommandError.NO_SUCH_KEY;
      }
      boolean same = from.mismatch(to) == -1;
      if (onlyIfAbsent) {
        if (server.store().expiryOf(to) != Cellar.ABSENT) {
          out.integer(0);
          return;
        }
      }
      if (!same) {
        if (current.header()) {
          // A collection moves whole in one unit: its header under the new name, the owner record
          // naming it, the old name gone. Its elements stay where they are, under its id.
          byte[] toKey = r.bytes(2);
          long id = CollectionDescriptor.decodeHeader(MemorySegment.ofArray(current.value())).id();
          WriteBatch move = new WriteBatch().putHeader(toKey, current.value(), current.expireAt());
          if (id != 0) { // a packed collection has no id, nor an owner record to rename
            move.putElement(CollectionDescriptor.ownerKey(id), toKey);
          }
          server.store().write(move.delete(r.bytes(1)));
          ListCommands.added(server, toKey); // a list or sorted set moved into place serves waiters
        } else {
          // New record first: a crash between the two leaves both keys, never neither.
          server.store().put(to, MemorySegment.ofArray(current.value()), current.expireAt());
          server.store().delete(from);
        }
        // Redis deletes the target, adds it again (new), then names both ends of the move.
        KeyspaceEvents.notify(server, NEW, "new", r, 2);
        KeyspaceEvents.notify(server, GENERIC, "rename_from", r, 1);
        KeyspaceEvents.notify(server, GENERIC, "rename_to", r, 2);
      }
      if (onlyIfAbsent) {
        out.integer(1);
      } else {
        out.ok();
      }
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static final int E_NX = 1;
  private static final int E_XX = 2;
  private static final int E_GT = 4;
  private static final int E_LT = 8;

  static void expire(
      Session s, Request r, ReplyWriter out, long unitMillis, boolean relative, String command) {
    // Redis reads the options before the time, so a bad option is reported before a bad number.
    int flags = 0;
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "nx")) {
        flags |= E_NX;
      } else if (r.is(i, "xx")) {
        flags |= E_XX;
      } else if (r.is(i, "gt")) {
        flags |= E_GT;
      } else if (r.is(i, "lt")) {
        flags |= E_LT;
      } else {
        throw new CommandError("ERR Unsupported option " + r.string(i));
      }
    }
    if ((flags & E_NX) != 0 && (flags & (E_XX | E_GT | E_LT)) != 0) {
      throw new CommandError("ERR NX and XX, GT or LT options at the same time are not compatible");
    }
    if ((flags & E_GT) != 0 && (flags & E_LT) != 0) {
      throw new CommandError("ERR GT and LT options at the same time are not compatible");
    }
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long n = r.longValue(2);
    long expireAt;
    try {
      long ms = Math.multiplyExact(n, unitMillis);
      expireAt = relative ? Math.addExact(ms, Values.now()) : ms;
    } catch (ArithmeticException e) {
      throw CommandError.invalidExpire(command);
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.AnyCurrent current = Values.anyCurrent(server.store(), key);
      if (current == null) {
        out.integer(0);
        return;
      }
      boolean hasTtl = current.expireAt() != Cellar.NO_EXPIRY;
      if (((flags & E_NX) != 0 && hasTtl)
          || ((flags & E_XX) != 0 && !hasTtl)
          || ((flags & E_GT) != 0 && (!hasTtl || expireAt <= current.expireAt()))
          || ((flags & E_LT) != 0 && hasTtl && expireAt >= current.expireAt())) {
        out.integer(0);
        return;
      }
      if (expireAt <= Values.now()) {
        server.store().delete(key); // an expiry in the past deletes, as in Redis
        KeyspaceEvents.notify(server, GENERIC, "del", r, 1);
      } else {
        Values.rewrite(server.store(), key, current, expireAt);
        KeyspaceEvents.notify(server, GENERIC, "expire", r, 1);
      }
      out.integer(1);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void expireTime(Session s, Request r, ReplyWriter out, long unitMillis) {
    long expireAt = s.server().store().expiryOf(r.segment(1));
    if (expireAt == Cellar.ABSENT) {
      KeyspaceEvents.miss(s.server(), r, 1);
      out.integer(-2);
    } else if (expireAt == Cellar.NO_EXPIRY) {
      out.integer(-1);
    } else {
      // Redis rounds to the nearest second, as TTL does: (ms + 500) / 1000, without overflowing.
      out.integer(unitMillis == 1 ? expireAt : expireAt / 1000 + (expireAt % 1000 >= 500 ? 1 : 0));
    }
  }

  static void ttl(Session s, Request r, ReplyWriter out, long unitMillis) {
    long expireAt = s.server().store().expiryOf(r.segment(1));
    if (expireAt == Cellar.ABSENT) {
      KeyspaceEvents.miss(s.server(), r, 1);
      out.integer(-2);
    } else if (expireAt == Cellar.NO_EXPIRY) {
      out.integer(-1);
    } else {
      long left = Math.max(0, expireAt - Values.now());
      out.integer(unitMillis == 1 ? left : (left + 500) / 1000);
    }
  }

  static void persist(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.AnyCurrent current = Values.anyCurrent(server.store(), key);
      if (current == null || current.expireAt() == Cellar.NO_EXPIRY) {
        out.integer(0);
        return;
      }
      Values.rewrite(server.store(), key, current, Cellar.NO_EXPIRY);
      KeyspaceEvents.notify(server, GENERIC, "persist", r, 1);
      out.integer(1);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void keys(Session s, Request r, ReplyWriter out) {
    byte[] pattern = r.bytes(1);
    List<byte[]> found = new ArrayList<>();
    byte[] prefix = literalPrefix(pattern);
    long cursor = ScanPage.START;
    do {
      ScanPage page = s.server().store().scanPage(cursor, prefix, 4096);
      for (byte[] key : page.keys()) {
        if (Glob.matches(pattern, 0, pattern.length, key, 0, key.length)) {
          found.add(key);
        }
      }
      cursor = page.nextCursor();
    } while (cursor != ScanPage.START);
    out.array(found.size());
    for (byte[] k : found) {
      out.bulk(k);
    }
  }

  /** The part of a glob before its first special character: the engine filters by it cheaply. */
  static byte[] literalPrefix(byte[] pattern) {
    int n = 0;
    while (n < pattern.length
        && pattern[n] != '*'
        && pattern[n] != '?'
        && pattern[n] != '['
        && pattern[n] != '\\') {
      n++;
    }
    return java.util.Arrays.copyOf(pattern, n);
  }

  /**
   * {@code SCAN cursor [MATCH p] [COUNT n] [TYPE t]} over the engine's resumable scan: the cursor
   * is the engine's (shard, hash-range) position, so it needs no server state and survives a
   * restart; each key present for a whole iteration is returned exactly once. The pattern's literal
   * prefix is filtered by the engine, the rest by {@link Glob}. COUNT is the number of index
   * entries examined, as in Redis.
   */
  static void scan(Session s, Request r, ReplyWriter out) {
    long cursor;
    try {
      cursor = Long.parseUnsignedLong(r.string(1));
    } catch (NumberFormatException e) {
      throw new CommandError("ERR invalid cursor");
    }
    byte[] pattern = null;
    String type = null;
    int count = 10;
    for (int i = 2; i < r.argc(); i++) {
      if (r.is(i, "match") && i + 1 < r.argc()) {
        pattern = r.bytes(++i);
      } else if (r.is(i, "count") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        long n = r.longValue(++i);
        if (n < 1) {
          throw CommandError.SYNTAX;
        }
        count = (int) Math.min(n, 1 << 20);
      } else if (r.is(i, "type") && i + 1 < r.argc()) {
        type = r.string(++i).toLowerCase(java.util.Locale.ROOT);
      } else {
        throw CommandError.SYNTAX;
      }
    }
    byte[] prefix = pattern == null ? new byte[0] : literalPrefix(pattern);
    ScanPage page;
    try {
      page = s.server().store().scanPage(cursor, prefix, count);
    } catch (dev.cellar.StoreClosedException e) {
      throw e;
    } catch (dev.cellar.CellarException e) {
      throw new CommandError("ERR invalid cursor");
    }
    List<byte[]> found = new ArrayList<>();
    for (byte[] key : page.keys()) {
      if ((pattern == null || Glob.matches(pattern, 0, pattern.length, key, 0, key.length))
          && (type == null
              || type.equals(
                  CollectionKeys.typeName(s.server().store(), MemorySegment.ofArray(key))))) {
        found.add(key);
      }
    }
    out.array(2);
    out.bulk(Long.toUnsignedString(page.nextCursor()));
    out.array(found.size());
    for (byte[] k : found) {
      out.bulk(k);
    }
  }

  /**
   * The engine samples random index slots; when every sample hits an expired key it may find none,
   * so a short scan looks for any live key before answering nil.
   */
  static void randomKey(Session s, Request r, ReplyWriter out) {
    byte[] key = s.server().store().randomKey();
    if (key == null) {
      long cursor = ScanPage.START;
      for (int pages = 0; pages < 64 && key == null; pages++) {
        ScanPage page = s.server().store().scanPage(cursor, new byte[0], 100);
        if (!page.keys().isEmpty()) {
          key = page.keys().getFirst();
        }
        cursor = page.nextCursor();
        if (page.complete()) {
          break;
        }
      }
    }
    if (key == null) {
      out.nullBulk();
    } else {
      out.bulk(key);
    }
  }
}
