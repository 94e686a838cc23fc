package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis's list commands, over {@link ListItems}; the blocking ones wait through {@link
 * BlockedClients}. Every command that adds to a list signals its waiters after its write.
 */
final class ListCommands {
  private ListCommands() {}

  static void register(CommandTable t) {
    t.add(
            "lpush",
            -3,
            "write denyoom fast",
            1,
            1,
            1,
            "list",
            "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
            (s, r, o) -> push(s, r, o, true, false))
        .add(
            "rpush",
            -3,
            "write denyoom fast",
            1,
            1,
            1,
            "list",
            "Appends one or more elements to a list. Creates the key if it doesn't exist.",
            (s, r, o) -> push(s, r, o, false, false))
        .add(
            "lpushx",
            -3,
            "write denyoom fast",
            1,
            1,
            1,
            "list",
            "Prepends one or more elements to a list only when the list exists.",
            (s, r, o) -> push(s, r, o, true, true))
        .add(
            "rpushx",
            -3,
            "write denyoom fast",
            1,
            1,
            1,
            "list",
            "Appends an element to a list only when the list exists.",
            (s, r, o) -> push(s, r, o, false, true))
        .add(
            "lpop",
            -2,
            "write fast",
            1,
            1,
            1,
            "list",
            "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.",
            (s, r, o) -> pop(s, r, o, true))
        .add(
            "rpop",
            -2,
            "write fast",
            1,
            1,
            1,
            "list",
            "Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
            (s, r, o) -> pop(s, r, o, false))
        .add(
            "llen",
            2,
            "readonly fast",
            1,
            1,
            1,
            "list",
            "Returns the length of a list.",
            ListCommands::llen)
        .add(
            "lindex",
            3,
            "readonly",
            1,
            1,
            1,
            "list",
            "Returns an element from a list by its index.",
            ListCommands::lindex)
        .add(
            "lset",
            4,
            "write denyoom",
            1,
            1,
            1,
            "list",
            "Sets the value of an element in a list by its index.",
            ListCommands::lset)
        .add(
            "lrange",
            4,
            "readonly",
            1,
            1,
            1,
            "list",
            "Returns a range of elements from a list.",
            ListCommands::lrange)
        .add(
            "linsert",
            5,
            "write denyoom",
            1,
            1,
            1,
            "list",
            "Inserts an element before or after another element in a list.",
            ListCommands::linsert)
        .add(
            "lrem",
            4,
            "write",
            1,
            1,
            1,
            "list",
            "Removes elements from a list. Deletes the list if the last element was removed.",
            ListCommands::lrem)
        .add(
            "ltrim",
            4,
            "write",
            1,
            1,
            1,
            "list",
            "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
            ListCommands::ltrim)
        .add(
            "lpos",
            -3,
            "readonly",
            1,
            1,
            1,
            "list",
            "Returns the index of matching elements in a list.",
            ListCommands::lpos)
        .add(
            "lmove",
            5,
            "write denyoom",
            1,
            2,
            1,
            "list",
            "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
            (s, r, o) -> lmove(s, r, o, false))
        .add(
            "rpoplpush",
            3,
            "write denyoom",
            1,
            2,
            1,
            "list",
            "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
            (s, r, o) -> lmove(s, r, o, false))
        .add(
            "lmpop",
            -4,
            "write movablekeys",
            0,
            0,
            0,
            "list",
            "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
            (s, r, o) -> lmpop(s, r, o, false))
        .add(
            "blpop",
            -3,
            "write blocking",
            1,
            -2,
            1,
            "list",
            "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
            (s, r, o) -> bpop(s, r, o, true))
        .add(
            "brpop",
            -3,
            "write blocking",
            1,
            -2,
            1,
            "list",
            "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
            (s, r, o) -> bpop(s, r, o, false))
        .add(
            "blmove",
            6,
            "write denyoom blocking",
            1,
            2,
            1,
            "list",
            "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
            (s, r, o) -> lmove(s, r, o, true))
        .add(
            "brpoplpush",
            4,
            "write denyoom blocking",
            1,
            2,
            1,
            "list",
            "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
            (s, r, o) -> lmove(s, r, o, true))
        .add(
            "blmpop",
            -5,
            "write blocking movablekeys",
            0,
            0,
            0,
            "list",
            "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
            (s, r, o) -> lmpop(s, r, o, true));
  }

  private static ListItems read(Session s, byte[] key) {
    return CollectionKeys.list(s.server().edits(), key);
  }

  /** Signals the waiters of {@code key}, if anyone waits at all. */
  static void added(ServerContext server, byte[] key) {
    if (server.blocked().any()) {
      server.blocked().signal(key);
    }
  }

  static void push(Session s, Request r, ReplyWriter out, boolean left, boolean onlyIfExists) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      if (onlyIfExists && !list.exists()) {
        out.integer(0);
        return;
      }
      boolean created = !list.exists();
      for (int i = 2; i < r.argc(); i++) {
        if (left) {
          list.pushLeft(r.bytes(i), server.collectionIds());
        } else {
          list.pushRight(r.bytes(i), server.collectionIds());
        }
      }
      list.finish();
      edits.commit();
      KeyspaceEvents.written(
          server, r, 1, created, KeyspaceEventFlags.LIST, left ? "lpush" : "rpush");
      added(server, r.bytes(1));
      out.integer(list.count());
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** Pops up to {@code count} from the list under {@code key}, holding its lock; with events. */
  private static List<byte[]> popLocked(
      ServerContext server, ElementEdits edits, ListItems list, boolean left, long count) {
    List<byte[]> popped = new ArrayList<>();
    while (popped.size() < count && list.exists()) {
      popped.add(left ? list.popLeft() : list.popRight());
    }
    list.finish();
    edits.commit();
    if (!popped.isEmpty()) {
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, left ? "lpop" : "rpop", list.key());
      if (!list.exists()) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", list.key());
      }
    }
    return popped;
  }

  static void pop(Session s, Request r, ReplyWriter out, boolean left) {
    if (r.argc() > 3) {
      // Redis answers LPOP and RPOP with too many arguments so (SPOP and ZPOPMIN: syntax error).
      throw CommandError.arity(left ? "lpop" : "rpop");
    }
    long count = Values.optionalCount(r);
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      if (!list.exists()) {
        KeyspaceEvents.miss(server, r, 1);
        if (r.argc() == 3) {
          out.nullArray();
        } else {
          out.nullBulk();
        }
        return;
      }
      List<byte[]> popped = popLocked(server, edits, list, left, count);
      if (r.argc() == 2) {
        out.bulk(popped.getFirst());
        return;
      }
      out.array(popped.size());
      popped.forEach(out::bulk);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void llen(Session s, Request r, ReplyWriter out) {
    out.integer(read(s, r.bytes(1)).count());
  }

  static void lindex(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    ListItems list = read(s, r.bytes(1));
    long n = list.count();
    long i = r.longValue(2);
    if (i < 0) {
      i += n;
    }
    StringCommands.bulkOrNull(out, i >= 0 && i < n ? list.get(i) : null);
  }

  static void lset(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      if (!list.exists()) {
        throw CommandError.NO_SUCH_KEY;
      }
      long i = r.longValue(2);
      if (i < 0) {
        i += list.count();
      }
      if (i < 0 || i >= list.count()) {
        throw new CommandError("ERR index out of range");
      }
      list.set(i, r.bytes(3), server.collectionIds());
      list.finish();
      edits.commit();
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, "lset", r, 1);
      out.ok();
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** Redis's range arithmetic: {from, to} within the list, or null when the range is empty. */
  static long[] range(long start, long stop, long n) {
    if (start < 0) {
      start += n;
    }
    if (stop < 0) {
      stop += n;
    }
    if (start < 0) {
      start = 0;
    }
    if (start > stop || start >= n) {
      return null;
    }
    return new long[] {start, Math.min(stop, n - 1)};
  }

  static void lrange(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2) || !r.isLong(3)) {
      throw CommandError.NOT_INTEGER;
    }
    ListItems list = read(s, r.bytes(1));
    if (!list.exists()) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    long[] range = range(r.longValue(2), r.longValue(3), list.count());
    if (range == null) {
      out.array(0);
      return;
    }
    out.array(range[1] - range[0] + 1);
    for (long p = range[0]; p <= range[1]; p++) {
      out.bulk(list.get(p));
    }
  }

  static void linsert(Session s, Request r, ReplyWriter out) {
    boolean before = r.is(2, "before");
    if (!before && !r.is(2, "after")) {
      throw CommandError.SYNTAX;
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      if (!list.exists()) {
        out.integer(0);
        return;
      }
      byte[] pivot = r.bytes(3);
      long at = -1;
      for (long p = 0; p < list.count() && at < 0; p++) {
        if (Arrays.equals(list.get(p), pivot)) {
          at = p;
        }
      }
      if (at < 0) {
        out.integer(-1);
        return;
      }
      list.insert(before ? at : at + 1, r.bytes(4), server.collectionIds());
      list.finish();
      edits.commit();
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, "linsert", r, 1);
      added(server, r.bytes(1));
      out.integer(list.count());
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void lrem(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long count = r.longValue(2);
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      byte[] element = r.bytes(3);
      long n = list.count();
      new ResultBudget("LREM").reserve(n, 16);
      List<byte[]> kept = new ArrayList<>();
      long removed = 0;
      long limit =
          count == 0 ? Long.MAX_VALUE : Math.abs(count == Long.MIN_VALUE ? count + 1 : count);
      if (count >= 0) {
        for (long p = 0; p < n; p++) {
          byte[] v = list.get(p);
          if (removed < limit && Arrays.equals(v, element)) {
            removed++;
          } else {
            kept.add(v);
          }
        }
      } else {
        for (long p = n - 1; p >= 0; p--) {
          byte[] v = list.get(p);
          if (removed < limit && Arrays.equals(v, element)) {
            removed++;
          } else {
            kept.addFirst(v);
          }
        }
      }
      if (removed > 0) {
        // O(n), as in Redis: the survivors close up from the start of the list.
        for (int p = 0; p < kept.size(); p++) {
          list.set(p, kept.get(p), server.collectionIds());
        }
        list.trim(0, kept.size() - 1);
        list.finish();
        edits.commit();
        KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, "lrem", r, 1);
        if (!list.exists()) {
          KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", r, 1);
        }
      }
      out.integer(removed);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void ltrim(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2) || !r.isLong(3)) {
      throw CommandError.NOT_INTEGER;
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      ListItems list = CollectionKeys.list(edits, r.bytes(1));
      if (!list.exists()) {
        out.ok();
        return;
      }
      long[] range = range(r.longValue(2), r.longValue(3), list.count());
      if (range == null) {
        list.trim(1, 0);
      } else {
        list.trim(range[0], range[1]);
      }
      list.finish();
      edits.commit();
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, "ltrim", r, 1);
      if (!list.exists()) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", r, 1);
      }
      out.ok();
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void lpos(Session s, Request r, ReplyWriter out) {
    long rank = 1;
    long count = -1;
    long maxlen = 0;
    for (int i = 3; i < r.argc(); i++) {
      if (i + 1 >= r.argc()) {
        throw CommandError.SYNTAX;
      }
      if (r.is(i, "rank")) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        rank = r.longValue(++i);
        if (rank == 0) {
          throw new CommandError(
              "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list");
        }
        if (rank == Long.MIN_VALUE) {
          throw new CommandError(
              "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        }
      } else if (r.is(i, "count")) {
        if (!r.isLong(i + 1) || r.longValue(i + 1) < 0) {
          throw new CommandError("ERR COUNT can't be negative");
        }
        count = r.longValue(++i);
      } else if (r.is(i, "maxlen")) {
        if (!r.isLong(i + 1) || r.longValue(i + 1) < 0) {
          throw new CommandError("ERR MAXLEN can't be negative");
        }
        maxlen = r.longValue(++i);
      } else {
        throw CommandError.SYNTAX;
      }
    }
    ListItems list = read(s, r.bytes(1));
    byte[] element = r.bytes(2);
    long n = list.count();
    List<Long> found = new ArrayList<>();
    long wanted = count < 0 ? 1 : count == 0 ? Long.MAX_VALUE : count;
    long skip = Math.abs(rank) - 1;
    long examined = 0;
    for (long k = 0; k < n && found.size() < wanted; k++) {
      if (maxlen > 0 && examined++ >= maxlen) {
        break;
      }
      long p = rank > 0 ? k : n - 1 - k;
      if (Arrays.equals(list.get(p), element)) {
        if (skip > 0) {
          skip--;
        } else {
          found.add(p);
        }
      }
    }
    if (count < 0) {
      if (found.isEmpty()) {
        out.nullBulk();
      } else {
        out.integer(found.getFirst());
      }
      return;
    }
    out.array(found.size());
    found.forEach(out::integer);
  }

  // ------------------------------------------------------------------ moves and blocking pops

  /** LMOVE, RPOPLPUSH and their blocking forms. */
  static void lmove(Session s, Request r, ReplyWriter out, boolean blocking) {
    boolean rpoplpush = r.argc() == (blocking ? 4 : 3);
    boolean fromLeft;
    boolean toLeft;
    if (rpoplpush) {
      fromLeft = false;
      toLeft = true;
    } else {
      fromLeft = side(r, 3);
      toLeft = side(r, 4);
    }
    long timeout = blocking ? BlockingPops.timeoutMillis(r, r.argc() - 1) : 0;
    byte[] from = r.bytes(1);
    byte[] to = r.bytes(2);
    Session session = s;
    BlockedClients.Attempt attempt =
        new BlockedClients.Attempt() {
          @Override
          public boolean retry(ReplyWriter o) {
            try {
              byte[] moved = move(session, from, to, fromLeft, toLeft);
              if (moved == null) {
                return false;
              }
              o.bulk(moved);
            } catch (CommandError e) {
              o.error(e.getMessage());
            }
            return true;
          }

          @Override
          public void timedOut(ReplyWriter o) {
            o.nullArray(); // Redis answers every blocking timeout with a null array
          }
        };
    ServerContext server = s.server();
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      byte[] moved = move(s, from, to, fromLeft, toLeft);
      if (moved != null) {
        out.bulk(moved);
      } else if (!blocking || server.inAtomicRun()) {
        out.nullBulk();
      } else {
        server.blocked().block(s, List.of(from), timeout, attempt);
      }
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  /** Moves one element, the caller holding both keys' locks (or taking them); null if none. */
  private static byte[] move(Session s, byte[] from, byte[] to, boolean fromLeft, boolean toLeft) {
    ServerContext server = s.server();
    int[] stripes = {KeyLocks.stripe(from, 0, from.length), KeyLocks.stripe(to, 0, to.length)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      ElementEdits edits = server.edits();
      ListItems source = CollectionKeys.list(edits, from);
      if (!source.exists()) {
        return null; // before the destination's type, as Redis checks
      }
      boolean same = Arrays.equals(from, to);
      ListItems target = same ? source : CollectionKeys.list(edits, to);
      boolean created = !target.exists();
      byte[] v = fromLeft ? source.popLeft() : source.popRight();
      if (toLeft) {
        target.pushLeft(v, server.collectionIds());
      } else {
        target.pushRight(v, server.collectionIds());
      }
      source.finish();
      if (!same) {
        target.finish();
      }
      edits.commit();
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, fromLeft ? "lpop" : "rpop", from);
      if (!source.exists()) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", from);
      }
      if (created) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.NEW, "new", to);
      }
      KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, toLeft ? "lpush" : "rpush", to);
      added(server, to);
      return v;
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static boolean side(Request r, int i) {
    if (r.is(i, "left")) {
      return true;
    }
    if (r.is(i, "right")) {
      return false;
    }
    throw CommandError.SYNTAX;
  }

  /** BLPOP and BRPOP: keys are arguments 1 to argc - 2, the timeout the last. */
  static void bpop(Session s, Request r, ReplyWriter out, boolean left) {
    long timeout = BlockingPops.timeoutMillis(r, r.argc() - 1);
    BlockingPops.popFirst(
        s,
        out,
        BlockingPops.keysBeforeTimeout(r),
        timeout,
        (x, o, key) -> pop(x, o, key, left, 1, false));
  }

  /** LMPOP numkeys key... LEFT|RIGHT [COUNT n]; BLMPOP with the timeout first. */
  static void lmpop(Session s, Request r, ReplyWriter out, boolean blocking) {
    BlockingPops.MultiPop m = BlockingPops.parseMulti(r, blocking, "left", "right");
    BlockingPops.popFirst(
        s, out, m.keys(), m.timeout(), (x, o, key) -> pop(x, o, key, m.first(), m.count(), true));
  }

  /**
   * Pops from the list under {@code key} if it has elements, answering {@code [key, element]}
   * (BLPOP) or {@code [key, [elements]]} (LMPOP's form, {@code multi}); false if it has none.
   */
  private static boolean pop(
      Session s, ReplyWriter out, byte[] key, boolean left, long count, boolean multi) {
    ServerContext server = s.server();
    ElementEdits edits = server.edits();
    ListItems list = CollectionKeys.list(edits, key);
    if (!list.exists()) {
      return false;
    }
    List<byte[]> popped = popLocked(server, edits, list, left, count);
    out.array(2);
    out.bulk(key);
    if (multi) {
      out.array(popped.size());
      popped.forEach(out::bulk);
    } else {
      out.bulk(popped.getFirst());
    }
    return true;
  }
}
