package dev.cellar.server.command;

import static dev.cellar.server.collection.CollectionDescriptor.SET;
import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Members;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Redis's set commands, over {@link Members} with empty payloads. Commands of several sets read
 * them whole onto the heap (as Redis builds its results in memory), bounded by what they read.
 */
final class SetCommands {
  private SetCommands() {}

  private static final byte[] NONE = new byte[0];

  static void register(CommandTable t) {
    t.add(
            "sadd",
            -3,
            "write denyoom fast",
            1,
            1,
            1,
            "set",
            "Adds one or more members to a set. Creates the key if it doesn't exist.",
            SetCommands::sadd)
        .add(
            "srem",
            -3,
            "write fast",
            1,
            1,
            1,
            "set",
            "Removes one or more members from a set. Deletes the set if the last member was removed.",
            SetCommands::srem)
        .add(
            "sismember",
            3,
            "readonly fast",
            1,
            1,
            1,
            "set",
            "Determines whether a member belongs to a set.",
            SetCommands::sismember)
        .add(
            "smismember",
            -3,
            "readonly fast",
            1,
            1,
            1,
            "set",
            "Determines whether multiple members belong to a set.",
            SetCommands::smismember)
        .add(
            "scard",
            2,
            "readonly fast",
            1,
            1,
            1,
            "set",
            "Returns the number of members in a set.",
            SetCommands::scard)
        .add(
            "smembers",
            2,
            "readonly",
            1,
            1,
            1,
            "set",
            "Returns all members of a set.",
            SetCommands::smembers)
        .add(
            "spop",
            -2,
            "write fast",
            1,
            1,
            1,
            "set",
            "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.",
            SetCommands::spop)
        .add(
            "srandmember",
            -2,
            "readonly",
            1,
            1,
            1,
            "set",
            "Get one or multiple random members from a set",
            SetCommands::srandmember)
        .add(
            "smove",
            4,
            "write fast",
            1,
            2,
            1,
            "set",
            "Moves a member from one set to another.",
            SetCommands::smove)
        .add(
            "sinter",
            -2,
            "readonly",
            1,
            -1,
            1,
            "set",
            "Returns the intersect of multiple sets.",
            (s, r, o) -> combine(s, r, o, INTER, 0))
        .add(
            "sunion",
            -2,
            "readonly",
            1,
            -1,
            1,
            "set",
            "Returns the union of multiple sets.",
            (s, r, o) -> combine(s, r, o, UNION, 0))
        .add(
            "sdiff",
            -2,
            "readonly",
            1,
            -1,
            1,
            "set",
            "Returns the difference of multiple sets.",
            (s, r, o) -> combine(s, r, o, DIFF, 0))
        .add(
            "sinterstore",
            -3,
            "write denyoom",
            1,
            -1,
            1,
            "set",
            "Stores the intersect of multiple sets in a key.",
            (s, r, o) -> combine(s, r, o, INTER, 1))
        .add(
            "sunionstore",
            -3,
            "write denyoom",
            1,
            -1,
            1,
            "set",
            "Stores the union of multiple sets in a key.",
            (s, r, o) -> combine(s, r, o, UNION, 1))
        .add(
            "sdiffstore",
            -3,
            "write denyoom",
            1,
            -1,
            1,
            "set",
            "Stores the difference of multiple sets in a key.",
            (s, r, o) -> combine(s, r, o, DIFF, 1))
        .add(
            "sintercard",
            -3,
            "readonly movablekeys",
            0,
            0,
            0,
            "set",
            "Returns the number of members of the intersect of multiple sets.",
            SetCommands::sintercard)
        .add(
            "sscan",
            -3,
            "readonly",
            1,
            1,
            1,
            "set",
            "Iterates over members of a set.",
            (s, r, o) -> MemberScan.scan(s, r, o, SET));
  }

  private static Members read(Session s, byte[] key) {
    return CollectionKeys.members(s.server().edits(), key, SET);
  }

  static void sadd(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members set = CollectionKeys.members(edits, r.bytes(1), SET);
      boolean created = !set.exists();
      if (created) {
        set.expectFirst(r.bytes(2), r.argc() - 2);
      }
      long added = 0;
      for (int i = 2; i < r.argc(); i++) {
        if (!set.contains(r.bytes(i)) && set.put(r.bytes(i), NONE, server.collectionIds())) {
          added++;
        }
      }
      set.finish();
      edits.commit();
      if (added > 0) {
        KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.SET, "sadd");
      }
      out.integer(added);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void srem(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members set = CollectionKeys.members(edits, r.bytes(1), SET);
      long removed = 0;
      for (int i = 2; i < r.argc() && set.exists(); i++) {
        if (set.remove(r.bytes(i))) {
          removed++;
        }
      }
      set.finish();
      edits.commit();
      removedEvents(server, r, 1, removed, set, "srem");
      out.integer(removed);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  private static void removedEvents(
      ServerContext server, Request r, int i, long removed, Members set, String event) {
    if (removed > 0) {
      KeyspaceEvents.notify(server, KeyspaceEventFlags.SET, event, r, i);
      if (!set.exists()) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", r, i);
      }
    }
  }

  static void sismember(Session s, Request r, ReplyWriter out) {
    Members set = read(s, r.bytes(1));
    out.integer(set.exists() && set.contains(r.bytes(2)) ? 1 : 0);
  }

  static void smismember(Session s, Request r, ReplyWriter out) {
    Members set = read(s, r.bytes(1));
    out.array(r.argc() - 2);
    for (int i = 2; i < r.argc(); i++) {
      out.integer(set.exists() && set.contains(r.bytes(i)) ? 1 : 0);
    }
  }

  static void scard(Session s, Request r, ReplyWriter out) {
    out.integer(read(s, r.bytes(1)).count());
  }

  static void smembers(Session s, Request r, ReplyWriter out) {
    Members set = read(s, r.bytes(1));
    if (!set.exists()) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    out.set(set.count());
    for (long slot = 0; slot < set.count(); slot++) {
      out.bulk(set.memberAt(slot));
    }
  }

  static void spop(Session s, Request r, ReplyWriter out) {
    long count = Values.optionalCount(r);
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      Members set = CollectionKeys.members(edits, r.bytes(1), SET);
      List<byte[]> popped = new ArrayList<>();
      long wanted = Math.min(count, set.count());
      for (long i = 0; i < wanted; i++) {
        byte[] member = set.memberAt(RandomSlots.one(set.count()));
        set.remove(member);
        popped.add(member);
      }
      set.finish();
      edits.commit();
      removedEvents(server, r, 1, popped.size(), set, "spop");
      if (r.argc() == 2) {
        StringCommands.bulkOrNull(out, popped.isEmpty() ? null : popped.getFirst());
        return;
      }
      out.set(popped.size());
      popped.forEach(out::bulk);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void srandmember(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 3) {
      throw CommandError.SYNTAX;
    }
    long count = r.argc() == 3 ? RandomSlots.count(r, false) : 0;
    Members set = read(s, r.bytes(1));
    if (r.argc() == 2) {
      StringCommands.bulkOrNull(
          out, set.exists() ? set.memberAt(RandomSlots.one(set.count())) : null);
      return;
    }
    if (count >= 0 || !set.exists()) {
      long[] slots =
          set.exists() && count > 0 ? RandomSlots.distinct(set.count(), count) : new long[0];
      out.array(slots.length);
      for (long slot : slots) {
        out.bulk(set.memberAt(slot));
      }
      return;
    }
    long n = RandomSlots.repeats(count, "SRANDMEMBER");
    out.array(n);
    for (long i = 0; i < n; i++) {
      out.bulk(set.memberAt(RandomSlots.one(set.count())));
    }
  }

  static void smove(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      ElementEdits edits = server.edits();
      Members from = CollectionKeys.members(edits, r.bytes(1), SET);
      if (!from.exists()) {
        out.integer(0); // before the destination's type, as Redis checks
        return;
      }
      boolean same = java.util.Arrays.equals(r.bytes(1), r.bytes(2));
      Members to = same ? from : CollectionKeys.members(edits, r.bytes(2), SET);
      byte[] member = r.bytes(3);
      if (!from.contains(member)) {
        out.integer(0);
        return;
      }
      if (same) {
        out.integer(1);
        return;
      }
      boolean created = !to.exists();
      from.remove(member);
      boolean added = !to.contains(member) && to.put(member, NONE, server.collectionIds());
      from.finish();
      to.finish();
      edits.commit();
      removedEvents(server, r, 1, 1, from, "srem");
      if (added) {
        KeyspaceEvents.written(server, r, 2, created, KeyspaceEventFlags.SET, "sadd");
      }
      out.integer(1);
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  static final int INTER = 0;
  static final int UNION = 1;
  static final int DIFF = 2;

  /** The members of a set, in slot order. */
  private static Set<ByteBuffer> membersOf(Members set, ResultBudget budget) {
    Set<ByteBuffer> out = new LinkedHashSet<>();
    for (long slot = 0; slot < set.count(); slot++) {
      byte[] m = set.memberAt(slot);
      budget.add(m.length);
      out.add(ByteBuffer.wrap(m));
    }
    return out;
  }

  /** SINTER/SUNION/SDIFF of the keys from {@code first}, their STORE forms when first is 2. */
  static void combine(Session s, Request r, ReplyWriter out, int op, int store) {
    ServerContext server = s.server();
    int first = 1 + store;
    int[] stripes = new int[r.argc() - 1];
    for (int i = 1; i < r.argc(); i++) {
      stripes[i - 1] = stripe(r, i);
    }
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      ElementEdits edits = server.edits();
      List<Members> sets = new ArrayList<>();
      for (int i = first; i < r.argc(); i++) {
        sets.add(CollectionKeys.members(edits, r.bytes(i), SET));
      }
      Set<ByteBuffer> result = combine(sets, op, new ResultBudget(r.string(0)));
      if (store == 0) {
        out.set(result.size());
        result.forEach(m -> out.bulk(m.array()));
        return;
      }
      byte[] destination = r.bytes(1);
      boolean existed =
          server.store().expiryOf(java.lang.foreign.MemorySegment.ofArray(destination))
              != dev.cellar.Cellar.ABSENT;
      if (result.isEmpty()) {
        server.store().delete(destination);
        if (existed) {
          KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", r, 1);
        }
        out.integer(0);
        return;
      }
      Members into = new Members(edits, destination, SET, null, dev.cellar.Cellar.NO_EXPIRY);
      for (ByteBuffer m : result) {
        into.put(m.array(), NONE, server.collectionIds());
      }
      into.finish();
      edits.commit();
      String event = op == INTER ? "sinterstore" : op == UNION ? "sunionstore" : "sdiffstore";
      KeyspaceEvents.written(server, r, 1, !existed, KeyspaceEventFlags.SET, event);
      out.integer(result.size());
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static Set<ByteBuffer> combine(List<Members> sets, int op, ResultBudget budget) {
    if (op == INTER) {
      for (Members m : sets) {
        if (!m.exists()) {
          return new LinkedHashSet<>();
        }
      }
      Members smallest = sets.getFirst();
      for (Members m : sets) {
        if (m.count() < smallest.count()) {
          smallest = m;
        }
      }
      Set<ByteBuffer> out = new LinkedHashSet<>();
      for (long slot = 0; slot < smallest.count(); slot++) {
        byte[] member = smallest.memberAt(slot);
        boolean all = true;
        for (Members m : sets) {
          if (m != smallest && !m.contains(member)) {
            all = false;
            break;
          }
        }
        if (all) {
          budget.add(member.length);
          out.add(ByteBuffer.wrap(member));
        }
      }
      return out;
    }
    Set<ByteBuffer> out = membersOf(sets.getFirst(), budget);
    for (int i = 1; i < sets.size(); i++) {
      if (op == UNION) {
        out.addAll(membersOf(sets.get(i), budget));
      } else {
        Members other = sets.get(i);
        out.removeIf(m -> other.contains(m.array()));
      }
    }
    return out;
  }

  static void sintercard(Session s, Request r, ReplyWriter out) {
    long numkeys = r.isLong(1) ? r.longValue(1) : 0;
    if (numkeys <= 0) {
      throw new CommandError("ERR numkeys should be greater than 0");
    }
    if (numkeys > r.argc() - 2) {
      throw new CommandError("ERR Number of keys can't be greater than number of args");
    }
    long limit = 0;
    int i = 2 + (int) numkeys;
    if (i < r.argc()) {
      if (!r.is(i, "limit") || i + 2 != r.argc()) {
        throw CommandError.SYNTAX;
      }
      if (!r.isLong(i + 1) || r.longValue(i + 1) < 0) {
        throw new CommandError("ERR LIMIT can't be negative");
      }
      limit = r.longValue(i + 1);
    }
    ElementEdits edits = s.server().edits();
    List<Members> sets = new ArrayList<>();
    for (int k = 2; k < 2 + numkeys; k++) {
      sets.add(CollectionKeys.members(edits, r.bytes(k), SET));
    }
    long n = combine(sets, INTER, new ResultBudget("SINTERCARD")).size();
    out.integer(limit > 0 ? Math.min(n, limit) : n);
  }
}
