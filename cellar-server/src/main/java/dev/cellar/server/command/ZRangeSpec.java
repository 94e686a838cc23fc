package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.collection.SortedMembers.Entry;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The range forms of the sorted-set commands: by rank, by score and by member (lex), forwards or in
 * reverse, with {@code LIMIT} and {@code WITHSCORES}, as {@code ZRANGE}, its older spellings,
 * {@code ZRANGESTORE}, the counts and the {@code ZREMRANGEBY*} commands read them. A range becomes
 * a span of ranks ({@link Limits#ranks}), found in O(log n) by {@link SortedMembers#countBelow}.
 */
final class ZRangeSpec {
  private ZRangeSpec() {}

  enum Form {
    ZRANGE,
    ZRANGESTORE,
    ZREVRANGE,
    ZRANGEBYSCORE,
    ZREVRANGEBYSCORE,
    ZRANGEBYLEX,
    ZREVRANGEBYLEX
  }

  enum Kind {
    RANK,
    SCORE,
    LEX
  }

  /** A range's two ends, resolved against a set as ranks. */
  interface Limits {
    /** The first and last rank of the range in {@code z}, or null if it holds none. */
    long[] ranks(SortedMembers z);

    static Limits rank(long start, long stop) {
      return z -> ListCommands.range(start, stop, z.count());
    }

    static Limits score(byte[] min, byte[] max) {
      SortedMembers.Bound from = scoreBound(min, true);
      SortedMembers.Bound to = scoreBound(max, false);
      return z -> span(z.countBelow(from), z.countBelow(to));
    }

    static Limits lex(byte[] min, byte[] max) {
      SortedMembers.Bound from = lexBound(min, true);
      SortedMembers.Bound to = lexBound(max, false);
      return z -> span(z.countBelow(from), z.countBelow(to));
    }
  }

  private static long[] span(long from, long end) {
    return from < end ? new long[] {from, end - 1} : null;
  }

  /**
   * The keys before a score bound: for the low end, those below it; for the high end, those not
   * above it. {@code (x} excludes x itself.
   */
  static SortedMembers.Bound scoreBound(byte[] text, boolean low) {
    boolean exclusive = text.length > 0 && text[0] == '(';
    Double x = Scores.tryParseBound(exclusive ? Arrays.copyOfRange(text, 1, text.length) : text);
    if (x == null) {
      throw new CommandError("ERR min or max is not a float");
    }
    double v = x;
    if (low) {
      return exclusive ? (s, m) -> s <= v : (s, m) -> s < v;
    }
    return exclusive ? (s, m) -> s < v : (s, m) -> s <= v;
  }

  /** As {@link #scoreBound}, for members: {@code [m}, {@code (m}, {@code -} or {@code +}. */
  static SortedMembers.Bound lexBound(byte[] text, boolean low) {
    if (text.length == 1 && text[0] == '-') {
      return (s, m) -> false;
    }
    if (text.length == 1 && text[0] == '+') {
      return (s, m) -> true;
    }
    if (text.length == 0 || (text[0] != '[' && text[0] != '(')) {
      throw new CommandError("ERR min or max not valid string range item");
    }
    boolean exclusive = text[0] == '(';
    byte[] v = Arrays.copyOfRange(text, 1, text.length);
    if (low) {
      return exclusive
          ? (s, m) -> Arrays.compareUnsigned(m, v) <= 0
          : (s, m) -> Arrays.compareUnsigned(m, v) < 0;
    }
    return exclusive
        ? (s, m) -> Arrays.compareUnsigned(m, v) < 0
        : (s, m) -> Arrays.compareUnsigned(m, v) <= 0;
  }

  /** One parsed range command. */
  private static final class Parsed {
    Kind kind = Kind.RANK;
    boolean reverse;
    boolean withScores;
    long offset;
    long limit = -1;
    boolean hasLimit;
  }

  static void range(Session s, Request r, ReplyWriter out, Form form) {
    int keyArg = form == Form.ZRANGESTORE ? 2 : 1;
    int first = keyArg + 1;
    Parsed p = new Parsed();
    switch (form) {
      case ZREVRANGE -> p.reverse = true;
      case ZRANGEBYSCORE -> p.kind = Kind.SCORE;
      case ZREVRANGEBYSCORE -> {
        p.kind = Kind.SCORE;
        p.reverse = true;
      }
      case ZRANGEBYLEX -> p.kind = Kind.LEX;
      case ZREVRANGEBYLEX -> {
        p.kind = Kind.LEX;
        p.reverse = true;
      }
      default -> {}
    }
    boolean modern = form == Form.ZRANGE || form == Form.ZRANGESTORE;
    for (int i = first + 2; i < r.argc(); i++) {
      if (modern && r.is(i, "byscore")) {
        p.kind = Kind.SCORE;
      } else if (modern && r.is(i, "bylex")) {
        p.kind = Kind.LEX;
      } else if (modern && r.is(i, "rev")) {
        p.reverse = true;
      } else if (r.is(i, "withscores") && form != Form.ZRANGESTORE) {
        p.withScores = true;
      } else if (r.is(i, "limit") && i + 2 < r.argc()) {
        if (!r.isLong(i + 1) || !r.isLong(i + 2)) {
          throw CommandError.NOT_INTEGER;
        }
        p.offset = r.longValue(i + 1);
        p.limit = r.longValue(i + 2);
        p.hasLimit = true;
        i += 2;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    if (p.hasLimit && p.kind == Kind.RANK) {
      throw new CommandError(
          "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    }
    if (p.withScores && p.kind == Kind.LEX) {
      throw new CommandError(
          "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    }
    // In reverse by score or lex, the first argument is the high end.
    byte[] a = r.bytes(first);
    byte[] b = r.bytes(first + 1);
    Limits limits =
        switch (p.kind) {
          case RANK -> {
            if (!r.isLong(first) || !r.isLong(first + 1)) {
              throw CommandError.NOT_INTEGER;
            }
            yield Limits.rank(r.longValue(first), r.longValue(first + 1));
          }
          case SCORE -> p.reverse ? Limits.score(b, a) : Limits.score(a, b);
          case LEX -> p.reverse ? Limits.lex(b, a) : Limits.lex(a, b);
        };
    if (form == Form.ZRANGESTORE) {
      store(s, r, out, p, limits);
      return;
    }
    SortedMembers z = ZSetCommands.read(s, r.bytes(keyArg));
    List<Entry> found = select(z, p, limits);
    if (p.withScores) {
      ZSetCommands.pairs(out, found, true);
    } else {
      out.array(found.size());
      found.forEach(e -> out.bulk(e.member()));
    }
  }

  /** The entries of a range in the order asked, after LIMIT. */
  private static List<Entry> select(SortedMembers z, Parsed p, Limits limits) {
    List<Entry> found = new ArrayList<>();
    if (!z.exists() || (p.hasLimit && p.offset < 0)) {
      return found;
    }
    long n = z.count();
    long[] ranks;
    if (p.kind == Kind.RANK && p.reverse) {
      long[] reversed = limits.ranks(z);
      ranks = reversed == null ? null : new long[] {n - 1 - reversed[1], n - 1 - reversed[0]};
    } else {
      ranks = limits.ranks(z);
    }
    if (ranks == null) {
      return found;
    }
    long from = ranks[0];
    long to = ranks[1];
    if (p.hasLimit) {
      if (p.reverse) {
        to -= p.offset;
        if (p.limit >= 0) {
          from = Math.max(from, to - p.limit + 1);
        }
      } else {
        from += p.offset;
        if (p.limit >= 0) {
          to = Math.min(to, from + p.limit - 1);
        }
      }
    }
    if (from > to) {
      return found;
    }
    ResultBudget budget = new ResultBudget("a sorted-set range");
    budget.reserve(to - from + 1, 16);
    z.range(
        from,
        to,
        p.reverse,
        e -> {
          budget.add(e.member().length);
          found.add(e);
        });
    return found;
  }

  private static void store(Session s, Request r, ReplyWriter out, Parsed p, Limits limits) {
    ServerContext server = s.server();
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      ElementEdits edits = server.edits();
      List<Entry> found = select(ZSetCommands.open(edits, r.bytes(2)), p, limits);
      ZSetAlgebra.replace(server, edits, r.bytes(1), found, "zrangestore");
      out.integer(found.size());
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  static void removeRange(Session s, Request r, ReplyWriter out, Kind kind) {
    Limits limits =
        switch (kind) {
          case RANK -> {
            if (!r.isLong(2) || !r.isLong(3)) {
              throw CommandError.NOT_INTEGER;
            }
            yield Limits.rank(r.longValue(2), r.longValue(3));
          }
          case SCORE -> Limits.score(r.bytes(2), r.bytes(3));
          case LEX -> Limits.lex(r.bytes(2), r.bytes(3));
        };
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = ZSetCommands.open(edits, r.bytes(1));
      long[] ranks = z.exists() ? limits.ranks(z) : null;
      List<Entry> doomed = new ArrayList<>();
      if (ranks != null) {
        new ResultBudget(r.string(0)).reserve(ranks[1] - ranks[0] + 1, 16);
        z.range(ranks[0], ranks[1], false, doomed::add);
      }
      for (Entry e : doomed) {
        z.remove(e.member());
      }
      z.finish();
      edits.commit();
      String event =
          switch (kind) {
            case RANK -> "zremrangebyrank";
            case SCORE -> "zremrangebyscore";
            case LEX -> "zremrangebylex";
          };
      ZSetCommands.removedEvents(server, r.bytes(1), doomed.size(), z, event);
      out.integer(doomed.size());
    } finally {
      server.locks().unlock(stripe);
    }
  }
}
