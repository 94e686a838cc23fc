package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.Members;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.collection.SortedMembers.Entry;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ZUNION}, {@code ZINTER}, {@code ZDIFF}, their {@code STORE} forms and {@code ZINTERCARD}:
 * sorted sets (and plain sets, whose members score 1) read whole onto the heap, combined with
 * weights and an aggregate, as Redis builds the result in memory.
 */
final class ZSetAlgebra {
  private ZSetAlgebra() {}

  private static final int UNION = 0;
  private static final int INTER = 1;
  private static final int DIFF = 2;

  static void register(CommandTable t) {
    t.add(
            "zunion",
            -3,
            "readonly movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Returns the union of multiple sorted sets.",
            (s, r, o) -> combine(s, r, o, UNION, false))
        .add(
            "zinter",
            -3,
            "readonly movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Returns the intersect of multiple sorted sets.",
            (s, r, o) -> combine(s, r, o, INTER, false))
        .add(
            "zdiff",
            -3,
            "readonly movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Returns the difference between multiple sorted sets.",
            (s, r, o) -> combine(s, r, o, DIFF, false))
        .add(
            "zunionstore",
            -4,
            "write denyoom movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Stores the union of multiple sorted sets in a key.",
            (s, r, o) -> combine(s, r, o, UNION, true))
        .add(
            "zinterstore",
            -4,
            "write denyoom movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Stores the intersect of multiple sorted sets in a key.",
            (s, r, o) -> combine(s, r, o, INTER, true))
        .add(
            "zdiffstore",
            -4,
            "write denyoom movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Stores the difference of multiple sorted sets in a key.",
            (s, r, o) -> combine(s, r, o, DIFF, true))
        .add(
            "zintercard",
            -3,
            "readonly movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Returns the number of members of the intersect of multiple sorted sets.",
            ZSetAlgebra::zintercard);
  }

  /** A source's members and scores, in its order; empty if the key is absent. */
  private static Map<ByteBuffer, Double> readSource(
      ElementEdits edits, byte[] key, ResultBudget budget) {
    Map<ByteBuffer, Double> out = new LinkedHashMap<>();
    Cellar store = edits.store();
    Header h = store.readHeader(MemorySegment.ofArray(key), CollectionDescriptor::decodeHeader);
    if (h == null) {
      if (store.expiryOf(MemorySegment.ofArray(key)) != Cellar.ABSENT) {
        throw CommandError.WRONG_TYPE;
      }
      return out;
    }
    if (h.type() == CollectionDescriptor.SET) {
      Members set = new Members(edits, key, CollectionDescriptor.SET, h, Cellar.NO_EXPIRY);
      budget.reserve(set.count(), 16);
      for (long slot = 0; slot < set.count(); slot++) {
        byte[] m = set.memberAt(slot);
        budget.add(m.length);
        out.put(ByteBuffer.wrap(m), 1.0);
      }
      return out;
    }
    if (h.type() != CollectionDescriptor.ZSET) {
      throw CommandError.WRONG_TYPE;
    }
    SortedMembers z = new SortedMembers(edits, key, h, Cellar.NO_EXPIRY);
    budget.reserve(z.count(), 16);
    z.range(
        0,
        z.count() - 1,
        false,
        e -> {
          budget.add(e.member().length);
          out.put(ByteBuffer.wrap(e.member()), e.score());
        });
    return out;
  }

  static void combine(Session s, Request r, ReplyWriter out, int op, boolean store) {
    String name = r.string(0).toLowerCase(java.util.Locale.ROOT);
    int at = store ? 2 : 1;
    if (!r.isLong(at)) {
      throw CommandError.NOT_INTEGER;
    }
    long numkeys = r.longValue(at);
    if (numkeys <= 0) {
      throw new CommandError("ERR at least 1 input key is needed for '" + name + "' command");
    }
    if (numkeys > r.argc() - at - 1) {
      throw CommandError.SYNTAX;
    }
    int n = (int) numkeys;
    double[] weights = new double[n];
    java.util.Arrays.fill(weights, 1);
    String aggregate = "sum";
    boolean withScores = false;
    for (int i = at + 1 + n; i < r.argc(); i++) {
      if (op != DIFF && r.is(i, "weights") && i + n < r.argc()) {
        for (int w = 0; w < n; w++) {
          Double weight = Scores.tryParse(r.bytes(i + 1 + w));
          if (weight == null) {
            throw new CommandError("ERR weight value is not a float");
          }
          weights[w] = weight;
        }
        i += n;
      } else if (op != DIFF
          && r.is(i, "aggregate")
          && i + 1 < r.argc()
          && (r.is(i + 1, "sum") || r.is(i + 1, "min") || r.is(i + 1, "max"))) {
        aggregate = r.string(++i).toLowerCase(java.util.Locale.ROOT);
      } else if (!store && r.is(i, "withscores")) {
        withScores = true;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    ServerContext server = s.server();
    int[] stripes = new int[n + 1];
    for (int k = 0; k < n; k++) {
      stripes[k] = Values.stripe(r, at + 1 + k);
    }
    stripes[n] = store ? Values.stripe(r, 1) : stripes[0];
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      ElementEdits edits = server.edits();
      ResultBudget budget = new ResultBudget(name.toUpperCase(java.util.Locale.ROOT));
      List<Map<ByteBuffer, Double>> sources = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        sources.add(readSource(edits, r.bytes(at + 1 + k), budget));
      }
      List<Entry> result = compute(sources, weights, aggregate, op);
      if (store) {
        replace(server, edits, r.bytes(1), result, name); // zunionstore, zinterstore, zdiffstore
        out.integer(result.size());
      } else if (withScores) {
        ZSetCommands.pairs(out, result, true);
      } else {
        out.array(result.size());
        result.forEach(e -> out.bulk(e.member()));
      }
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static double weighted(double score, double weight) {
    double v = score * weight;
    return Double.isNaN(v) ? 0 : v; // 0 * inf, as Redis takes it
  }

  private static List<Entry> compute(
      List<Map<ByteBuffer, Double>> sources, double[] weights, String aggregate, int op) {
    Map<ByteBuffer, Double> acc = new LinkedHashMap<>();
    if (op == DIFF) {
      acc.putAll(sources.getFirst());
      for (int k = 1; k < sources.size(); k++) {
        acc.keySet().removeAll(sources.get(k).keySet());
      }
    } else if (op == UNION) {
      for (int k = 0; k < sources.size(); k++) {
        for (var e : sources.get(k).entrySet()) {
          double v = weighted(e.getValue(), weights[k]);
          acc.merge(e.getKey(), v, (a, b) -> aggregate(a, b, aggregate));
        }
      }
    } else {
      for (var e : sources.getFirst().entrySet()) {
        double v = weighted(e.getValue(), weights[0]);
        boolean all = true;
        for (int k = 1; k < sources.size() && all; k++) {
          Double other = sources.get(k).get(e.getKey());
          if (other == null) {
            all = false;
          } else {
            v = aggregate(v, weighted(other, weights[k]), aggregate);
          }
        }
        if (all) {
          acc.put(e.getKey(), v);
        }
      }
    }
    List<Entry> out = new ArrayList<>(acc.size());
    acc.forEach((m, v) -> out.add(new Entry(v == 0 ? 0.0 : v, m.array())));
    out.sort((a, b) -> SortedMembers.compare(a.score(), a.member(), b.score(), b.member()));
    return out;
  }

  private static double aggregate(double a, double b, String how) {
    return switch (how) {
      case "min" -> Math.min(a, b);
      case "max" -> Math.max(a, b);
      default -> {
        double sum = a + b;
        yield Double.isNaN(sum) ? 0 : sum;
      }
    };
  }

  /**
   * Makes {@code destination} a new sorted set of {@code entries} (deleting it if there are none),
   * writing through {@code edits}, and publishes {@code event}, the storing command's (Redis names
   * each: {@code zunionstore}, {@code zrangestore}, {@code geosearchstore}...); the caller holds
   * the destination's lock.
   */
  static void replace(
      ServerContext server,
      ElementEdits edits,
      byte[] destination,
      List<Entry> entries,
      String event) {
    boolean existed = server.store().expiryOf(MemorySegment.ofArray(destination)) != Cellar.ABSENT;
    if (entries.isEmpty()) {
      edits.commit();
      if (existed) {
        server.store().delete(destination);
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", destination);
      }
      return;
    }
    SortedMembers into = new SortedMembers(edits, destination, null, Cellar.NO_EXPIRY);
    for (Entry e : entries) {
      into.put(e.member(), e.score(), server.collectionIds());
    }
    into.finish();
    edits.commit();
    if (!existed) {
      KeyspaceEvents.notify(server, KeyspaceEventFlags.NEW, "new", destination);
    }
    KeyspaceEvents.notify(server, KeyspaceEventFlags.ZSET, event, destination);
    ListCommands.added(server, destination);
  }

  static void zintercard(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(1)) {
      throw CommandError.NOT_INTEGER;
    }
    long numkeys = r.longValue(1);
    if (numkeys <= 0) {
      throw new CommandError("ERR at least 1 input key is needed for 'zintercard' command");
    }
    if (numkeys > r.argc() - 2) {
      throw CommandError.SYNTAX;
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
    ResultBudget budget = new ResultBudget("ZINTERCARD");
    List<Map<ByteBuffer, Double>> sources = new ArrayList<>();
    double[] weights = new double[(int) numkeys];
    java.util.Arrays.fill(weights, 1);
    for (int k = 2; k < 2 + numkeys; k++) {
      sources.add(readSource(edits, r.bytes(k), budget));
    }
    long count = compute(sources, weights, "sum", INTER).size();
    out.integer(limit > 0 ? Math.min(count, limit) : count);
  }
}
