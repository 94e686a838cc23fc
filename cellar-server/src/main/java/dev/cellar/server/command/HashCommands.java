package dev.cellar.server.command;

import static dev.cellar.server.collection.CollectionDescriptor.HASH;
import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Members;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.Numbers;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Redis's hash commands, over {@link Members}: each command reads and changes its hash through one
 * {@link ElementEdits} under the key's stripe lock, and writes what it changed as one atomic unit.
 */
final class HashCommands {
  private HashCommands() {}

  static void register(CommandTable t) {
    t.add(
            "hset",
            -4,
            "write denyoom fast",
            1,
            1,
            1,
            "hash",
            "Creates or modifies the value of a field in a hash.",
            (s, r, o) -> hset(s, r, o, false))
        .add(
            "hmset",
            -4,
            "write denyoom fast",
            1,
            1,
            1,
            "hash",
            "Sets the values of multiple fields.",
            (s, r, o) -> hset(s, r, o, true))
        .add(
            "hsetnx",
            4,
            "write denyoom fast",
            1,
            1,
            1,
            "hash",
            "Sets the value of a field in a hash only when the field doesn't exist.",
            HashCommands::hsetnx)
        .add(
            "hget",
            3,
            "readonly fast",
            1,
            1,
            1,
            "hash",
            "Returns the value of a field in a hash.",
            HashCommands::hget)
        .add(
            "hmget",
            -3,
            "readonly fast",
            1,
            1,
            1,
            "hash",
            "Returns the values of all fields in a hash.",
            HashCommands::hmget)
        .add(
            "hdel",
            -3,
            "write fast",
            1,
            1,
            1,
            "hash",
            "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
            HashCommands::hdel)
        .add(
            "hlen",
            2,
            "readonly fast",
            1,
            1,
            1,
            "hash",
            "Returns the number of fields in a hash.",
            HashCommands::hlen)
        .add(
            "hexists",
            3,
            "readonly fast",
            1,
            1,
            1,
            "hash",
            "Determines whether a field exists in a hash.",
            HashCommands::hexists)
        .add(
            "hstrlen",
            3,
            "readonly fast",
            1,
            1,
            1,
            "hash",
            "Returns the length of the value of a field.",
            HashCommands::hstrlen)
        .add(
            "hgetall",
            2,
            "readonly",
            1,
            1,
            1,
            "hash",
            "Returns all fields and values in a hash.",
            (s, r, o) -> all(s, r, o, true, true))
        .add(
            "hkeys",
            2,
            "readonly",
            1,
            1,
            1,
            "hash",
            "Returns all fields in a hash.",
            (s, r, o) -> all(s, r, o, true, false))
        .add(
            "hvals",
            2,
            "readonly",
            1,
            1,
            1,
            "hash",
            "Returns all values in a hash.",
            (s, r, o) -> all(s, r, o, false, true))
        .add(
            "hincrby",
            4,
            "write denyoom fast",
            1,
            1,
            1,
            "hash",
            "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
            HashCommands::hincrby)
        .add(
            "hincrbyfloat",
            4,
            "write denyoom fast",
            1,
            1,
            1,
            "hash",
            "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
            HashCommands::hincrbyfloat)
        .add(
            "hrandfield",
            -2,
            "readonly",
            1,
            1,
            1,
            "hash",
            "Returns one or more random fields from a hash.",
            HashCommands::hrandfield)
        .add(
            "hscan",
            -3,
            "readonly",
            1,
            1,
            1,
            "hash",
            "Iterates over fields and values of a hash.",
            (s, r, o) -> MemberScan.scan(s, r, o, HASH));
  }

  /** Reads argument 1's hash for reading only. */
  private static Members read(Session s, Request r) {
    return CollectionKeys.members(s.server().edits(), r.bytes(1), HASH);
  }

  static void hset(Session s, Request r, ReplyWriter out, boolean ok) {
    if (r.argc() % 2 != 0) {
      throw CommandError.arity(ok ? "hmset" : "hset");
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members hash = CollectionKeys.members(edits, r.bytes(1), HASH);
      boolean created = !hash.exists();
      long added = 0;
      for (int i = 2; i < r.argc(); i += 2) {
        if (hash.put(r.bytes(i), r.bytes(i + 1), server.collectionIds())) {
          added++;
        }
      }
      hash.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.HASH, "hset");
      if (ok) {
        out.ok();
      } else {
        out.integer(added);
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void hsetnx(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members hash = CollectionKeys.members(edits, r.bytes(1), HASH);
      boolean created = !hash.exists();
      if (hash.contains(r.bytes(2))) {
        out.integer(0);
        return;
      }
      hash.put(r.bytes(2), r.bytes(3), server.collectionIds());
      hash.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.HASH, "hset");
      out.integer(1);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void hget(Session s, Request r, ReplyWriter out) {
    Members hash = read(s, r);
    byte[] v = hash.exists() ? hash.payload(r.bytes(2)) : null;
    if (!hash.exists()) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    StringCommands.bulkOrNull(out, v);
  }

  static void hmget(Session s, Request r, ReplyWriter out) {
    Members hash = read(s, r);
    if (!hash.exists()) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    out.array(r.argc() - 2);
    for (int i = 2; i < r.argc(); i++) {
      StringCommands.bulkOrNull(out, hash.exists() ? hash.payload(r.bytes(i)) : null);
    }
  }

  static void hdel(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members hash = CollectionKeys.members(edits, r.bytes(1), HASH);
      long removed = 0;
      if (hash.exists()) {
        for (int i = 2; i < r.argc(); i++) {
          if (hash.remove(r.bytes(i))) {
            removed++;
          }
        }
      }
      hash.finish();
      edits.commit();
      if (removed > 0) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.HASH, "hdel", r, 1);
        if (!hash.exists()) {
          KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", r, 1);
        }
      }
      out.integer(removed);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void hlen(Session s, Request r, ReplyWriter out) {
    out.integer(read(s, r).count());
  }

  static void hexists(Session s, Request r, ReplyWriter out) {
    Members hash = read(s, r);
    out.integer(hash.exists() && hash.contains(r.bytes(2)) ? 1 : 0);
  }

  static void hstrlen(Session s, Request r, ReplyWriter out) {
    Members hash = read(s, r);
    byte[] v = hash.exists() ? hash.payload(r.bytes(2)) : null;
    out.integer(v == null ? 0 : v.length);
  }

  static void all(Session s, Request r, ReplyWriter out, boolean fields, boolean values) {
    Members hash = read(s, r);
    if (!hash.exists()) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    long n = hash.count();
    if (fields && values) {
      out.map(n);
    } else {
      out.array(n);
    }
    for (long slot = 0; slot < n; slot++) {
      byte[] field = hash.memberAt(slot);
      if (fields) {
        out.bulk(field);
      }
      if (values) {
        out.bulk(hash.payload(field));
      }
    }
  }

  static void hincrby(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(3)) {
      throw CommandError.NOT_INTEGER;
    }
    long delta = r.longValue(3);
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members hash = CollectionKeys.members(edits, r.bytes(1), HASH);
      boolean created = !hash.exists();
      byte[] old = hash.exists() ? hash.payload(r.bytes(2)) : null;
      long value = 0;
      if (old != null) {
        if (!Numbers.isLong(old, 0, old.length)) {
          throw new CommandError("ERR hash value is not an integer");
        }
        value = Numbers.parseLong(old, 0, old.length);
      }
      long sum;
      try {
        sum = Math.addExact(value, delta);
      } catch (ArithmeticException e) {
        throw new CommandError("ERR increment or decrement would overflow");
      }
      hash.put(r.bytes(2), Numbers.toBytes(sum), server.collectionIds());
      hash.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.HASH, "hincrby");
      out.integer(sum);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void hincrbyfloat(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    BigDecimal delta = LongDouble.parse(r.bytes(3));
    if (delta == null) {
      throw new CommandError("ERR value is NaN or Infinity");
    }
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members hash = CollectionKeys.members(edits, r.bytes(1), HASH);
      boolean created = !hash.exists();
      byte[] old = hash.exists() ? hash.payload(r.bytes(2)) : null;
      BigDecimal value;
      try {
        value = old == null ? BigDecimal.ZERO : LongDouble.parse(old);
      } catch (CommandError notFloat) {
        throw new CommandError("ERR hash value is not a float");
      }
      BigDecimal sum = value == null ? null : LongDouble.round(value.add(delta));
      if (sum == null) {
        throw LongDouble.NAN_OR_INFINITY;
      }
      String text = LongDouble.format(sum);
      hash.put(r.bytes(2), text.getBytes(StandardCharsets.US_ASCII), server.collectionIds());
      hash.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.HASH, "hincrbyfloat");
      out.bulk(text);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void hrandfield(Session s, Request r, ReplyWriter out) {
    boolean withValues = false;
    long count = r.argc() > 2 ? RandomSlots.count(r, false) : 0;
    if (r.argc() > 4 || (r.argc() == 4 && !(withValues = r.is(3, "withvalues")))) {
      throw CommandError.SYNTAX;
    }
    if (withValues) {
      count = RandomSlots.count(r, true);
    }
    Members hash = read(s, r);
    if (r.argc() == 2) {
      StringCommands.bulkOrNull(
          out, hash.exists() ? hash.memberAt(RandomSlots.one(hash.count())) : null);
      return;
    }
    boolean pairs = withValues && out.protocol() == 3;
    if (count >= 0 || !hash.exists()) {
      long[] slots =
          hash.exists() && count > 0 ? RandomSlots.distinct(hash.count(), count) : new long[0];
      out.array(withValues && !pairs ? 2L * slots.length : slots.length);
      for (long slot : slots) {
        field(out, hash, hash.memberAt(slot), withValues, pairs);
      }
      return;
    }
    long n = RandomSlots.repeats(count, "HRANDFIELD");
    out.array(withValues && !pairs ? 2 * n : n);
    for (long i = 0; i < n; i++) {
      field(out, hash, hash.memberAt(RandomSlots.one(hash.count())), withValues, pairs);
    }
  }

  private static void field(
      ReplyWriter out, Members hash, byte[] field, boolean withValues, boolean pairs) {
    if (pairs) {
      out.array(2);
    }
    out.bulk(field);
    if (withValues) {
      out.bulk(hash.payload(field));
    }
  }
}
