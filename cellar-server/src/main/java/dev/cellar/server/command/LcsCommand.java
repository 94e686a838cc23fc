package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;

/**
 * {@code LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]}: the longest common subsequence
 * of two string values (a missing key is an empty string), its length, or the matching ranges, as
 * Redis 7 computes them: the same dynamic-programming table, walked back from the end, so that the
 * ranges and the chosen subsequence are Redis's.
 *
 * <p>Redis allocates the whole table, {@code 4 * (len1 + 1) * (len2 + 1)} bytes, for any two
 * strings; here the table is bounded so that no request can exhaust the heap: {@code LEN} alone
 * needs only two rows and is bounded by its work ({@link #MAX_CELLS_LEN}), the subsequence and
 * {@code IDX} need the table and are bounded by its size ({@link #MAX_CELLS_TABLE}). Past either,
 * the command is refused with the sizes and what to do.
 */
final class LcsCommand {
  private LcsCommand() {}

  /** Most table cells for the subsequence or IDX: 64 MiB of ints. */
  static final long MAX_CELLS_TABLE = 16L << 20;

  /** Most cells LEN computes (in two rows): about a second of one core. */
  static final long MAX_CELLS_LEN = 1L << 30;

  static void run(Session s, Request r, ReplyWriter out) {
    // Redis looks both keys up before it reads the options.
    byte[] a;
    byte[] b;
    try {
      a = Values.get(s.server().store(), r.segment(1));
      b = Values.get(s.server().store(), r.segment(2));
    } catch (CommandError wrongType) {
      throw new CommandError("ERR The specified keys must contain string values");
    }
    if (a == null) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    if (b == null) {
      KeyspaceEvents.miss(s.server(), r, 2);
    }
    boolean len = false;
    boolean idx = false;
    boolean withMatchLen = false;
    long minMatchLen = 0;
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "idx")) {
        idx = true;
      } else if (r.is(i, "len")) {
        len = true;
      } else if (r.is(i, "withmatchlen")) {
        withMatchLen = true;
      } else if (r.is(i, "minmatchlen") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        minMatchLen = Math.max(0, r.longValue(i + 1));
        i++;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    a = a == null ? new byte[0] : a;
    b = b == null ? new byte[0] : b;
    if (idx && len) {
      throw new CommandError("ERR If you want both the length and indexes, please just use IDX.");
    }
    long cells = (a.length + 1L) * (b.length + 1L);
    if (len && !idx) {
      if (cells > MAX_CELLS_LEN) {
        throw tooLong(a, b, MAX_CELLS_LEN);
      }
      out.integer(length(a, b));
      return;
    }
    if (cells > MAX_CELLS_TABLE) {
      throw tooLong(a, b, MAX_CELLS_TABLE);
    }
    walk(out, a, b, idx, withMatchLen, minMatchLen);
  }

  private static CommandError tooLong(byte[] a, byte[] b, long cells) {
    return new CommandError(
        "ERR String too long for LCS: "
            + a.length
            + " and "
            + b.length
            + " bytes need more than "
            + cells
            + " table cells; use shorter strings (LEN alone allows longer ones)");
  }

  /** The subsequence's length, from two rows of the table. */
  private static int length(byte[] a, byte[] b) {
    int[] previous = new int[b.length + 1];
    int[] row = new int[b.length + 1];
    for (int i = 1; i <= a.length; i++) {
      for (int j = 1; j <= b.length; j++) {
        row[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], row[j - 1]);
      }
      int[] t = previous;
      previous = row;
      row = t;
    }
    return previous[b.length];
  }

  /** Redis's walk back through the whole table: the subsequence, or the ranges for IDX. */
  private static void walk(
      ReplyWriter out, byte[] a, byte[] b, boolean idx, boolean withMatchLen, long minMatchLen) {
    int alen = a.length;
    int blen = b.length;
    int width = blen + 1;
    int[] lcs = new int[(alen + 1) * width];
    for (int i = 1; i <= alen; i++) {
      for (int j = 1; j <= blen; j++) {
        lcs[i * width + j] =
            a[i - 1] == b[j - 1]
                ? lcs[(i - 1) * width + j - 1] + 1
                : Math.max(lcs[(i - 1) * width + j], lcs[i * width + j - 1]);
      }
    }
    int total = lcs[alen * width + blen];
    byte[] result = new byte[total];
    java.util.List<long[]> ranges = new java.util.ArrayList<>();
    int at = total;
    int aStart = alen; // alen: no range open
    int aEnd = 0;
    int bStart = 0;
    int bEnd = 0;
    int i = alen;
    int j = blen;
    while (i > 0 && j > 0) {
      boolean emit = false;
      if (a[i - 1] == b[j - 1]) {
        result[at - 1] = a[i - 1];
        if (aStart == alen) {
          aStart = i - 1;
          aEnd = i - 1;
          bStart = j - 1;
          bEnd = j - 1;
        } else if (aStart == i && bStart == j) {
          aStart--;
          bStart--;
        } else {
          emit = true;
        }
        if (aStart == 0 || bStart == 0) {
          emit = true;
        }
        at--;
        i--;
        j--;
      } else {
        if (lcs[(i - 1) * width + j] > lcs[i * width + j - 1]) {
          i--;
        } else {
          j--;
        }
        if (aStart != alen) {
          emit = true;
        }
      }
      long matchLen = aEnd - aStart + 1L;
      if (emit) {
        if (minMatchLen == 0 || matchLen >= minMatchLen) {
          ranges.add(new long[] {aStart, aEnd, bStart, bEnd, matchLen});
        }
        aStart = alen;
      }
    }
    if (!idx) {
      out.bulk(result);
      return;
    }
    out.map(2);
    out.bulk("matches");
    out.array(ranges.size());
    for (long[] m : ranges) {
      out.array(withMatchLen ? 3 : 2);
      out.array(2);
      out.integer(m[0]);
      out.integer(m[1]);
      out.array(2);
      out.integer(m[2]);
      out.integer(m[3]);
      if (withMatchLen) {
        out.integer(m[4]);
      }
    }
    out.bulk("len");
    out.integer(total);
  }
}
