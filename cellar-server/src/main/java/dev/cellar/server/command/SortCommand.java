package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.collection.Members;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * {@code SORT} and {@code SORT_RO}: the elements of a list, set or sorted set, sorted numerically
 * or as strings, by themselves or by the values of other keys ({@code BY}), limited, projected
 * ({@code GET}) and optionally stored as a list. As Redis builds the result on the heap, so does
 * this, bounded by the collection it reads.
 */
final class SortCommand {
  private SortCommand() {}

  static void register(CommandTable t) {
    t.add(
            "sort",
            -2,
            "write denyoom movablekeys",
            1,
            1,
            1,
            "generic",
            "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.",
            (s, r, o) -> sort(s, r, o, false))
        .add(
            "sort_ro",
            -2,
            "readonly movablekeys",
            1,
            1,
            1,
            "generic",
            "Returns the sorted elements of a list, a set, or a sorted set.",
            (s, r, o) -> sort(s, r, o, true));
  }

  private record Item(byte[] value, double score, byte[] weight) {}

  static void sort(Session s, Request r, ReplyWriter out, boolean readOnly) {
    boolean desc = false;
    boolean alpha = false;
    long offset = 0;
    long count = -1;
    byte[] by = null;
    byte[] store = null;
    List<byte[]> gets = new ArrayList<>();
    for (int i = 2; i < r.argc(); i++) {
      if (r.is(i, "asc")) {
        desc = false;
      } else if (r.is(i, "desc")) {
        desc = true;
      } else if (r.is(i, "alpha")) {
        alpha = true;
      } else if (r.is(i, "limit") && i + 2 < r.argc()) {
        if (!r.isLong(i + 1) || !r.isLong(i + 2)) {
          throw CommandError.NOT_INTEGER;
        }
        offset = r.longValue(i + 1);
        count = r.longValue(i + 2);
        i += 2;
      } else if (!readOnly && r.is(i, "store") && i + 1 < r.argc()) {
        store = r.bytes(++i);
      } else if (r.is(i, "by") && i + 1 < r.argc()) {
        by = r.bytes(++i);
      } else if (r.is(i, "get") && i + 1 < r.argc()) {
        gets.add(r.bytes(++i));
      } else {
        throw CommandError.SYNTAX;
      }
    }
    ServerContext server = s.server();
    Cellar db = server.store();
    Header h = db.readHeader(MemorySegment.ofArray(r.bytes(1)), CollectionDescriptor::decodeHeader);
    List<byte[]> elements = elements(db, r.bytes(1), h, new ResultBudget(r.string(0)));
    boolean dontSort = by != null && indexOf(by, (byte) '*') < 0;
    if (dontSort
        && h != null
        && h.type() == CollectionDescriptor.SET
        && (store != null || s.script())) {
      // A set's order is its own: sorted as strings when stored or in a script, as Redis does,
      // so that the result is one whatever the set's internal order.
      dontSort = false;
      by = null;
      alpha = true;
    }
    List<Item> items = new ArrayList<>(elements.size());
    for (byte[] e : elements) {
      byte[] weight = by == null ? e : dontSort ? null : lookup(db, by, e);
      double score = 0;
      if (!dontSort && !alpha) {
        if (weight != null) {
          Double d = number(weight);
          if (d == null) {
            throw new CommandError("ERR One or more scores can't be converted into double");
          }
          score = d;
        }
      }
      items.add(new Item(e, score, weight));
    }
    if (dontSort && desc && h != null && h.type() == CollectionDescriptor.ZSET) {
      java.util.Collections.reverse(items); // a sorted set unsorted keeps its order, or reverses it
    }
    if (!dontSort) {
      Comparator<Item> order =
          alpha
              ? (a, b) -> compareBytes(a.weight, b.weight)
              : (a, b) -> {
                int c = Double.compare(a.score, b.score);
                return c != 0 ? c : compareBytes(a.value, b.value);
              };
      // Stable: weights that compare equal as strings keep the collection's order, as Redis's
      // qsort leaves them (numbers that tie compare as elements above).
      items.sort(desc ? order.reversed() : order);
    }
    int from = (int) Math.max(0, Math.min(offset, items.size()));
    int to = count < 0 ? items.size() : (int) Math.min(items.size(), from + count);
    if (offset < 0) {
      from = 0;
    }
    List<byte[]> result = new ArrayList<>();
    for (Item item : items.subList(from, Math.max(from, to))) {
      if (gets.isEmpty()) {
        result.add(item.value);
      } else {
        for (byte[] g : gets) {
          result.add(g.length == 1 && g[0] == '#' ? item.value : lookup(db, g, item.value));
        }
      }
    }
    if (store == null) {
      out.array(result.size());
      result.forEach(v -> StringCommands.bulkOrNull(out, v));
      return;
    }
    store(server, r, store, result);
    out.integer(result.size());
  }

  private static void store(
      ServerContext server, Request r, byte[] destination, List<byte[]> result) {
    int stripe = KeyLocks.stripe(destination, 0, destination.length);
    server.locks().lock(stripe);
    try {
      server.store().delete(destination);
      if (!result.isEmpty()) {
        ElementEdits edits = server.edits();
        ListItems list = new ListItems(edits, destination, null, Cellar.NO_EXPIRY);
        for (byte[] v : result) {
          list.pushRight(v == null ? new byte[0] : v, server.collectionIds());
        }
        list.finish();
        edits.commit();
        KeyspaceEvents.notify(server, KeyspaceEventFlags.LIST, "sortstore", destination);
        ListCommands.added(server, destination);
      } else {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", destination);
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** The elements SORT reads: a list's in order, a set's, a sorted set's by rank. */
  /** The elements of the collection under {@code key}, whose header (or null) is {@code h}. */
  private static List<byte[]> elements(Cellar db, byte[] key, Header h, ResultBudget budget) {
    List<byte[]> out = new ArrayList<>();
    if (h == null) {
      if (db.expiryOf(MemorySegment.ofArray(key)) != Cellar.ABSENT) {
        throw CommandError.WRONG_TYPE;
      }
      return out;
    }
    ElementEdits edits = new ElementEdits(db);
    budget.reserve(h.count(), 16);
    switch (h.type()) {
      case CollectionDescriptor.LIST -> {
        ListItems list = new ListItems(edits, key, h, Cellar.NO_EXPIRY);
        out.addAll(list.range(0, list.count() - 1));
      }
      case CollectionDescriptor.SET -> {
        Members set = new Members(edits, key, CollectionDescriptor.SET, h, Cellar.NO_EXPIRY);
        for (long slot = 0; slot < set.count(); slot++) {
          out.add(set.memberAt(slot));
        }
      }
      case CollectionDescriptor.ZSET -> {
        SortedMembers z = new SortedMembers(edits, key, h, Cellar.NO_EXPIRY);
        z.range(0, z.count() - 1, false, e -> out.add(e.member()));
      }
      default -> throw CommandError.WRONG_TYPE;
    }
    return out;
  }

  /**
   * The value a BY or GET pattern names for {@code element}: the pattern with its first {@code *}
   * replaced, a string key, or a hash field after {@code ->}; null if there is none.
   */
  private static byte[] lookup(Cellar db, byte[] pattern, byte[] element) {
    int star = indexOf(pattern, (byte) '*');
    if (star < 0) {
      return null;
    }
    int arrow = -1;
    for (int i = star + 1; i + 1 < pattern.length; i++) {
      if (pattern[i] == '-' && pattern[i + 1] == '>') {
        arrow = i;
        break;
      }
    }
    int keyEnd = arrow < 0 || arrow + 2 == pattern.length ? pattern.length : arrow;
    byte[] key = new byte[keyEnd - 1 + element.length];
    System.arraycopy(pattern, 0, key, 0, star);
    System.arraycopy(element, 0, key, star, element.length);
    System.arraycopy(pattern, star + 1, key, star + element.length, keyEnd - star - 1);
    MemorySegment k = MemorySegment.ofArray(key);
    if (keyEnd == pattern.length) {
      return db.read(k, v -> v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }
    byte[] field = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
    Header h = db.readHeader(k, CollectionDescriptor::decodeHeader);
    if (h == null || h.type() != CollectionDescriptor.HASH) {
      return null;
    }
    return new Members(new ElementEdits(db), key, CollectionDescriptor.HASH, h, Cellar.NO_EXPIRY)
        .payload(field);
  }

  /** A weight as C's strtod reads it for SORT: leading blanks skipped, the empty string 0. */
  private static Double number(byte[] b) {
    int start = 0;
    while (start < b.length && Character.isWhitespace(b[start])) {
      start++;
    }
    return start == b.length
        ? Double.valueOf(0)
        : Scores.tryParse(Arrays.copyOfRange(b, start, b.length));
  }

  private static int indexOf(byte[] b, byte c) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == c) {
        return i;
      }
    }
    return -1;
  }

  private static int compareBytes(byte[] a, byte[] b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return Arrays.compareUnsigned(a, b);
  }
}
