package dev.cellar.server.command;

import static dev.cellar.server.collection.CollectionDescriptor.ZSET;
import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.collection.SortedMembers.Entry;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's sorted-set commands that read and write one set, over {@link SortedMembers}; the ones
 * that combine several sets are {@link ZSetAlgebra}, the ranges' arguments {@link ZRangeSpec}.
 */
final class ZSetCommands {
  private ZSetCommands() {}

  static void register(CommandTable t) {
    t.add(
            "zadd",
            -4,
            "write denyoom fast",
            1,
            1,
            1,
            "sorted_set",
            "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.",
            ZSetCommands::zadd)
        .add(
            "zincrby",
            4,
            "write denyoom fast",
            1,
            1,
            1,
            "sorted_set",
            "Increments the score of a member in a sorted set.",
            ZSetCommands::zincrby)
        .add(
            "zrem",
            -3,
            "write fast",
            1,
            1,
            1,
            "sorted_set",
            "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
            ZSetCommands::zrem)
        .add(
            "zscore",
            3,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the score of a member in a sorted set.",
            ZSetCommands::zscore)
        .add(
            "zmscore",
            -3,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the score of one or more members in a sorted set.",
            ZSetCommands::zmscore)
        .add(
            "zcard",
            2,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the number of members in a sorted set.",
            ZSetCommands::zcard)
        .add(
            "zcount",
            4,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the count of members in a sorted set that have scores within a range.",
            (s, r, o) -> count(s, r, o, false))
        .add(
            "zlexcount",
            4,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the number of members in a sorted set within a lexicographical range.",
            (s, r, o) -> count(s, r, o, true))
        .add(
            "zrank",
            -3,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the index of a member in a sorted set ordered by ascending scores.",
            (s, r, o) -> rank(s, r, o, false))
        .add(
            "zrevrank",
            -3,
            "readonly fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the index of a member in a sorted set ordered by descending scores.",
            (s, r, o) -> rank(s, r, o, true))
        .add(
            "zrange",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a range of indexes.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZRANGE))
        .add(
            "zrangestore",
            -5,
            "write denyoom",
            1,
            2,
            1,
            "sorted_set",
            "Stores a range of members from sorted set in a key.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZRANGESTORE))
        .add(
            "zrevrange",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a range of indexes in reverse order.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZREVRANGE))
        .add(
            "zrangebyscore",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a range of scores.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZRANGEBYSCORE))
        .add(
            "zrevrangebyscore",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a range of scores in reverse order.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZREVRANGEBYSCORE))
        .add(
            "zrangebylex",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a lexicographical range.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZRANGEBYLEX))
        .add(
            "zrevrangebylex",
            -4,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns members in a sorted set within a lexicographical range in reverse order.",
            (s, r, o) -> ZRangeSpec.range(s, r, o, ZRangeSpec.Form.ZREVRANGEBYLEX))
        .add(
            "zremrangebyrank",
            4,
            "write",
            1,
            1,
            1,
            "sorted_set",
            "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.",
            (s, r, o) -> ZRangeSpec.removeRange(s, r, o, ZRangeSpec.Kind.RANK))
        .add(
            "zremrangebyscore",
            4,
            "write",
            1,
            1,
            1,
            "sorted_set",
            "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.",
            (s, r, o) -> ZRangeSpec.removeRange(s, r, o, ZRangeSpec.Kind.SCORE))
        .add(
            "zremrangebylex",
            4,
            "write",
            1,
            1,
            1,
            "sorted_set",
            "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.",
            (s, r, o) -> ZRangeSpec.removeRange(s, r, o, ZRangeSpec.Kind.LEX))
        .add(
            "zpopmin",
            -2,
            "write fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
            (s, r, o) -> zpop(s, r, o, true))
        .add(
            "zpopmax",
            -2,
            "write fast",
            1,
            1,
            1,
            "sorted_set",
            "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
            (s, r, o) -> zpop(s, r, o, false))
        .add(
            "bzpopmin",
            -3,
            "write fast blocking",
            1,
            -2,
            1,
            "sorted_set",
            "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
            (s, r, o) -> bzpop(s, r, o, true))
        .add(
            "bzpopmax",
            -3,
            "write fast blocking",
            1,
            -2,
            1,
            "sorted_set",
            "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped.",
            (s, r, o) -> bzpop(s, r, o, false))
        .add(
            "zmpop",
            -4,
            "write movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.",
            (s, r, o) -> zmpop(s, r, o, false))
        .add(
            "bzmpop",
            -5,
            "write blocking movablekeys",
            0,
            0,
            0,
            "sorted_set",
            "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
            (s, r, o) -> zmpop(s, r, o, true))
        .add(
            "zrandmember",
            -2,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Returns one or more random members from a sorted set.",
            ZSetCommands::zrandmember)
        .add(
            "zscan",
            -3,
            "readonly",
            1,
            1,
            1,
            "sorted_set",
            "Iterates over members and scores of a sorted set.",
            ZSetCommands::zscan);
    ZSetAlgebra.register(t);
  }

  static SortedMembers open(ElementEdits edits, byte[] key) {
    CollectionKeys.Found f = CollectionKeys.find(edits.store(), key, ZSET);
    return new SortedMembers(edits, key, f.header(), f.expireAt());
  }

  static SortedMembers read(Session s, byte[] key) {
    return open(s.server().edits(), key);
  }

  /** A score as a reply: a bulk string in RESP2, a double in RESP3. */
  static void score(ReplyWriter out, double score) {
    out.doubleValue(Scores.format(score));
  }

  private static final int NX = 1;
  private static final int XX = 2;
  private static final int GT = 4;
  private static final int LT = 8;
  private static final int CH = 16;
  private static final int INCR = 32;

  static void zadd(Session s, Request r, ReplyWriter out) {
    int flags = 0;
    int i = 2;
    for (; i < r.argc(); i++) {
      if (r.is(i, "nx")) {
        flags |= NX;
      } else if (r.is(i, "xx")) {
        flags |= XX;
      } else if (r.is(i, "gt")) {
        flags |= GT;
      } else if (r.is(i, "lt")) {
        flags |= LT;
      } else if (r.is(i, "ch")) {
        flags |= CH;
      } else if (r.is(i, "incr")) {
        flags |= INCR;
      } else {
        break;
      }
    }
    int pairs = r.argc() - i;
    if (pairs == 0 || pairs % 2 != 0) {
      throw CommandError.SYNTAX;
    }
    if ((flags & NX) != 0 && (flags & XX) != 0) {
      throw new CommandError("ERR XX and NX options at the same time are not compatible");
    }
    if (((flags & GT) != 0 && (flags & LT) != 0)
        || ((flags & NX) != 0 && (flags & (GT | LT)) != 0)) {
      throw new CommandError("ERR GT, LT, and/or NX options at the same time are not compatible");
    }
    if ((flags & INCR) != 0 && pairs != 2) {
      throw new CommandError("ERR INCR option supports a single increment-element pair");
    }
    double[] scores = new double[pairs / 2];
    for (int p = 0; p < scores.length; p++) {
      scores[p] = Scores.parse(r.bytes(i + 2 * p));
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = open(edits, r.bytes(1));
      boolean created = !z.exists();
      long added = 0;
      long changed = 0;
      Double result = null;
      for (int p = 0; p < scores.length; p++) {
        byte[] member = r.bytes(i + 2 * p + 1);
        Double old = z.score(member);
        double score = scores[p];
        if ((flags & INCR) != 0) {
          score = (old == null ? 0 : old) + score;
          if (Double.isNaN(score)) {
            throw new CommandError("ERR resulting score is not a number (NaN)");
          }
        }
        if ((old == null && (flags & XX) != 0)
            || (old != null && (flags & NX) != 0)
            || (old != null && (flags & GT) != 0 && !(score > old))
            || (old != null && (flags & LT) != 0 && !(score < old))) {
          continue;
        }
        if (old == null) {
          added++;
        } else if (old != score) {
          changed++;
        }
        z.put(member, score, server.collectionIds());
        result = score;
      }
      z.finish();
      edits.commit();
      if (added + changed > 0) {
        KeyspaceEvents.written(
            server,
            r,
            1,
            created && added > 0,
            KeyspaceEventFlags.ZSET,
            (flags & INCR) != 0 ? "zincr" : "zadd");
        ListCommands.added(server, r.bytes(1));
      }
      if ((flags & INCR) != 0) {
        if (result == null) {
          out.nullBulk();
        } else {
          score(out, result);
        }
      } else {
        out.integer((flags & CH) != 0 ? added + changed : added);
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void zincrby(Session s, Request r, ReplyWriter out) {
    double delta = Scores.parse(r.bytes(2));
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = open(edits, r.bytes(1));
      boolean created = !z.exists();
      Double old = z.score(r.bytes(3));
      double score = (old == null ? 0 : old) + delta;
      if (Double.isNaN(score)) {
        throw new CommandError("ERR resulting score is not a number (NaN)");
      }
      z.put(r.bytes(3), score, server.collectionIds());
      z.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.ZSET, "zincr");
      ListCommands.added(server, r.bytes(1));
      score(out, score);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void zrem(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = open(edits, r.bytes(1));
      long removed = 0;
      for (int i = 2; i < r.argc() && z.exists(); i++) {
        if (z.remove(r.bytes(i))) {
          removed++;
        }
      }
      z.finish();
      edits.commit();
      removedEvents(server, r.bytes(1), removed, z, "zrem");
      out.integer(removed);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void removedEvents(
      ServerContext server, byte[] key, long removed, SortedMembers z, String event) {
    if (removed > 0) {
      KeyspaceEvents.notify(server, KeyspaceEventFlags.ZSET, event, key);
      if (!z.exists()) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.GENERIC, "del", key);
      }
    }
  }

  static void zscore(Session s, Request r, ReplyWriter out) {
    Double score = read(s, r.bytes(1)).score(r.bytes(2));
    if (score == null) {
      out.nullBulk();
    } else {
      score(out, score);
    }
  }

  static void zmscore(Session s, Request r, ReplyWriter out) {
    SortedMembers z = read(s, r.bytes(1));
    out.array(r.argc() - 2);
    for (int i = 2; i < r.argc(); i++) {
      Double score = z.score(r.bytes(i));
      if (score == null) {
        out.nullBulk();
      } else {
        score(out, score);
      }
    }
  }

  static void zcard(Session s, Request r, ReplyWriter out) {
    out.integer(read(s, r.bytes(1)).count());
  }

  static void count(Session s, Request r, ReplyWriter out, boolean lex) {
    ZRangeSpec.Limits limits =
        lex
            ? ZRangeSpec.Limits.lex(r.bytes(2), r.bytes(3))
            : ZRangeSpec.Limits.score(r.bytes(2), r.bytes(3));
    SortedMembers z = read(s, r.bytes(1));
    long[] ranks = limits.ranks(z);
    out.integer(ranks == null ? 0 : ranks[1] - ranks[0] + 1);
  }

  static void rank(Session s, Request r, ReplyWriter out, boolean reverse) {
    boolean withScore = false;
    if (r.argc() == 4 && r.is(3, "withscore")) {
      withScore = true;
    } else if (r.argc() != 3) {
      throw CommandError.SYNTAX;
    }
    SortedMembers z = read(s, r.bytes(1));
    Double score = z.score(r.bytes(2));
    if (score == null) {
      if (withScore) {
        out.nullArray();
      } else {
        out.nullBulk();
      }
      return;
    }
    long rank = z.rank(score, r.bytes(2));
    long answer = reverse ? z.count() - 1 - rank : rank;
    if (withScore) {
      out.array(2);
      out.integer(answer);
      score(out, score);
    } else {
      out.integer(answer);
    }
  }

  /** Pops up to {@code count} members from the low (or high) end, the key's lock held. */
  static List<Entry> popLocked(
      ServerContext server, ElementEdits edits, SortedMembers z, boolean min, long count) {
    List<Entry> popped = new ArrayList<>();
    while (popped.size() < count && z.exists()) {
      Entry e = z.at(min ? 0 : z.count() - 1);
      z.remove(e.member());
      popped.add(e);
    }
    z.finish();
    edits.commit();
    removedEvents(server, z.key(), popped.size(), z, min ? "zpopmin" : "zpopmax");
    return popped;
  }

  /** Member-score pairs: flat in RESP2, as pairs in RESP3 (Redis's ZPOPMIN with a count). */
  static void pairs(ReplyWriter out, List<Entry> entries, boolean nested) {
    boolean resp3 = out.protocol() == 3;
    if (nested && resp3) {
      out.array(entries.size());
    } else {
      out.array(2L * entries.size());
    }
    for (Entry e : entries) {
      if (nested && resp3) {
        out.array(2);
      }
      out.bulk(e.member());
      score(out, e.score());
    }
  }

  static void zpop(Session s, Request r, ReplyWriter out, boolean min) {
    long count = Values.optionalCount(r);
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = open(edits, r.bytes(1));
      List<Entry> popped = popLocked(server, edits, z, min, count);
      pairs(out, popped, r.argc() == 3);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void bzpop(Session s, Request r, ReplyWriter out, boolean min) {
    long timeout = BlockingPops.timeoutMillis(r, r.argc() - 1);
    BlockingPops.popFirst(
        s,
        out,
        BlockingPops.keysBeforeTimeout(r),
        timeout,
        (x, o, key) -> pop(x, o, key, min, 1, false));
  }

  static void zmpop(Session s, Request r, ReplyWriter out, boolean blocking) {
    BlockingPops.MultiPop m = BlockingPops.parseMulti(r, blocking, "min", "max");
    BlockingPops.popFirst(
        s, out, m.keys(), m.timeout(), (x, o, key) -> pop(x, o, key, m.first(), m.count(), true));
  }

  /**
   * Pops from the sorted set under {@code key} if it has members, answering {@code [key, member,
   * score]} (BZPOPMIN) or {@code [key, [[member, score]...]]} (ZMPOP's form); false if none.
   */
  private static boolean pop(
      Session s, ReplyWriter out, byte[] key, boolean min, long count, boolean multi) {
    ServerContext server = s.server();
    ElementEdits edits = server.edits();
    SortedMembers z = open(edits, key);
    if (!z.exists()) {
      return false;
    }
    List<Entry> popped = popLocked(server, edits, z, min, count);
    if (multi) {
      out.array(2);
      out.bulk(key);
      out.array(popped.size());
      for (Entry e : popped) {
        out.array(2);
        out.bulk(e.member());
        score(out, e.score());
      }
    } else {
      out.array(3);
      out.bulk(key);
      out.bulk(popped.getFirst().member());
      score(out, popped.getFirst().score());
    }
    return true;
  }

  static void zrandmember(Session s, Request r, ReplyWriter out) {
    boolean withScores = false;
    long count = r.argc() > 2 ? RandomSlots.count(r, false) : 0;
    if (r.argc() > 4 || (r.argc() == 4 && !(withScores = r.is(3, "withscores")))) {
      throw CommandError.SYNTAX;
    }
    if (withScores) {
      count = RandomSlots.count(r, true);
    }
    SortedMembers z = read(s, r.bytes(1));
    if (r.argc() == 2) {
      StringCommands.bulkOrNull(out, z.exists() ? z.at(RandomSlots.one(z.count())).member() : null);
      return;
    }
    boolean nested = withScores && out.protocol() == 3;
    List<Entry> picked = new ArrayList<>();
    if (count >= 0 || !z.exists()) {
      long[] ranks = z.exists() && count > 0 ? RandomSlots.distinct(z.count(), count) : new long[0];
      for (long rank : ranks) {
        picked.add(z.at(rank));
      }
    } else {
      long n = RandomSlots.repeats(count, "ZRANDMEMBER");
      out.array(withScores && !nested ? 2 * n : n);
      for (long i = 0; i < n; i++) {
        Entry e = z.at(RandomSlots.one(z.count()));
        if (nested) {
          out.array(2);
        }
        out.bulk(e.member());
        if (withScores) {
          score(out, e.score());
        }
      }
      return;
    }
    if (withScores) {
      pairs(out, picked, true);
    } else {
      out.array(picked.size());
      picked.forEach(e -> out.bulk(e.member()));
    }
  }

  static void zscan(Session s, Request r, ReplyWriter out) {
    long cursor;
    try {
      cursor = Long.parseUnsignedLong(r.string(2));
    } catch (NumberFormatException e) {
      throw new CommandError("ERR invalid cursor");
    }
    byte[] pattern = null;
    long count = 10;
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "match") && i + 1 < r.argc()) {
        pattern = r.bytes(++i);
      } else if (r.is(i, "count") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        count = r.longValue(++i);
        if (count < 1) {
          throw CommandError.SYNTAX;
        }
      } else {
        throw CommandError.SYNTAX;
      }
    }
    SortedMembers z = read(s, r.bytes(1));
    long n = z.count();
    // By rank; a set of up to MemberScan.WHOLE members is answered whole, as Redis does.
    long from = n <= MemberScan.WHOLE ? 0 : Math.min(cursor, n);
    long to = n <= MemberScan.WHOLE ? n - 1 : Math.min(n - 1, from + count - 1);
    long next = to + 1 >= n ? 0 : to + 1;
    List<Entry> found = new ArrayList<>();
    byte[] p = pattern;
    z.range(
        from,
        to,
        false,
        e -> {
          if (p == null
              || dev.cellar.server.config.Glob.matches(
                  p, 0, p.length, e.member(), 0, e.member().length)) {
            found.add(e);
          }
        });
    out.array(2);
    out.bulk(Long.toUnsignedString(next));
    out.array(2L * found.size());
    for (Entry e : found) {
      out.bulk(e.member());
      out.bulk(Scores.format(e.score()));
    }
  }
}
