package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * Redis's conversions between replies and Lua values, both ways (the EVAL documentation's tables).
 *
 * <ul>
 *   <li>RESP2 to Lua, for what {@code redis.call} returns: integer to number, bulk to string, null
 *       bulk or null array to {@code false}, array to table, status to a table with field {@code
 *       ok}, error to a table with field {@code err}.
 *   <li>RESP3 to Lua, after {@code redis.setresp(3)}: besides the above, a map to a table with
 *       field {@code map} (a table of its pairs), a set to one with field {@code set} (its members
 *       as keys, each {@code true}), null to nil, a boolean to a boolean, a double to a table with
 *       field {@code double}, a big number to one with {@code big_number} (its digits), a verbatim
 *       string to one with {@code verbatim_string} ({@code format} and {@code string}).
 *   <li>Lua to the client, for what a script returns: number to integer (truncated), string to
 *       bulk, {@code true} to 1 and {@code false} to null (or to RESP3 booleans if the script set
 *       RESP3), nil to null, a table with {@code err} to an error, with {@code ok} to a status,
 *       with {@code double}, {@code big_number}, {@code verbatim_string}, {@code map} or {@code
 *       set} to that type (as the client's protocol writes it: a map is a flat array in RESP2), any
 *       other table to an array of its elements up to the first nil.
 * </ul>
 */
final class LuaReplies {
  private LuaReplies() {}

  static final LuaString OK_FIELD = LuaString.valueOf("ok");
  static final LuaString ERR_FIELD = LuaString.valueOf("err");

  /**
   * Set, as Redis sets it, on an error that a command called from the script already counted in the
   * error statistics: passed on by the script, it is not counted again.
   */
  static final LuaString COUNTED_FIELD = LuaString.valueOf("ignore_error_stats_update");

  static final LuaString DOUBLE_FIELD = LuaString.valueOf("double");
  static final LuaString BIG_NUMBER_FIELD = LuaString.valueOf("big_number");
  static final LuaString VERBATIM_FIELD = LuaString.valueOf("verbatim_string");
  static final LuaString FORMAT_FIELD = LuaString.valueOf("format");
  static final LuaString STRING_FIELD = LuaString.valueOf("string");
  static final LuaString MAP_FIELD = LuaString.valueOf("map");
  static final LuaString SET_FIELD = LuaString.valueOf("set");

  /** Parses the one RESP2 or RESP3 reply in {@code b[0, end)} into a Lua value. */
  static LuaValue parse(byte[] b, int end) {
    return parse(b, new int[] {0}, end);
  }

  private static LuaValue parse(byte[] b, int[] at, int end) {
    byte type = b[at[0]];
    int lineEnd = lineEnd(b, at[0], end);
    int from = at[0] + 1;
    at[0] = lineEnd + 2;
    switch (type) {
      case ':' -> {
        return LuaValue.valueOf(parseLong(b, from, lineEnd));
      }
      case '+' -> {
        LuaTable t = new LuaTable();
        t.rawset(OK_FIELD, LuaString.valueOf(copy(b, from, lineEnd)));
        return t;
      }
      case '-' -> {
        LuaTable t = new LuaTable();
        t.rawset(ERR_FIELD, LuaString.valueOf(copy(b, from, lineEnd)));
        t.rawset(COUNTED_FIELD, LuaValue.TRUE);
        return t;
      }
      case '$' -> {
        long n = parseLong(b, from, lineEnd);
        if (n < 0) {
          return LuaValue.FALSE;
        }
        LuaString s = LuaString.valueOf(copy(b, at[0], at[0] + (int) n));
        at[0] += (int) n + 2;
        return s;
      }
      case '*' -> {
        long n = parseLong(b, from, lineEnd);
        if (n < 0) {
          return LuaValue.FALSE;
        }
        LuaTable t = new LuaTable((int) Math.min(n, 1 << 16), 0);
        for (int i = 1; i <= n; i++) {
          t.rawset(i, parse(b, at, end));
        }
        return t;
      }
      case '%' -> {
        long n = parseLong(b, from, lineEnd);
        LuaTable pairs = new LuaTable();
        for (long i = 0; i < n; i++) {
          LuaValue key = parse(b, at, end);
          LuaValue value = parse(b, at, end);
          if (!key.isnil()) {
            pairs.rawset(key, value);
          }
        }
        return field(MAP_FIELD, pairs);
      }
      case '~' -> {
        long n = parseLong(b, from, lineEnd);
        LuaTable members = new LuaTable();
        for (long i = 0; i < n; i++) {
          LuaValue member = parse(b, at, end);
          if (!member.isnil()) {
            members.rawset(member, LuaValue.TRUE);
          }
        }
        return field(SET_FIELD, members);
      }
      case '_' -> {
        return LuaValue.NIL;
      }
      case '#' -> {
        return LuaValue.valueOf(b[from] == 't');
      }
      case ',' -> {
        String text = new String(b, from, lineEnd - from, StandardCharsets.US_ASCII);
        double d =
            switch (text) {
              case "inf" -> Double.POSITIVE_INFINITY;
              case "-inf" -> Double.NEGATIVE_INFINITY;
              case "nan" -> Double.NaN;
              default -> Double.parseDouble(text);
            };
        return field(DOUBLE_FIELD, LuaValue.valueOf(d));
      }
      case '(' -> {
        return field(BIG_NUMBER_FIELD, LuaString.valueOf(copy(b, from, lineEnd)));
      }
      case '=' -> {
        long n = parseLong(b, from, lineEnd);
        LuaTable verbatim = new LuaTable();
        verbatim.rawset(FORMAT_FIELD, LuaString.valueOf(copy(b, at[0], at[0] + 3)));
        verbatim.rawset(STRING_FIELD, LuaString.valueOf(copy(b, at[0] + 4, at[0] + (int) n)));
        at[0] += (int) n + 2;
        return field(VERBATIM_FIELD, verbatim);
      }
      default ->
          throw new IllegalStateException("unexpected reply type '" + (char) type + "' in script");
    }
  }

  private static LuaTable field(LuaString name, LuaValue value) {
    LuaTable t = new LuaTable();
    t.rawset(name, value);
    return t;
  }

  private static int lineEnd(byte[] b, int from, int end) {
    for (int i = from; i + 1 < end; i++) {
      if (b[i] == '\r' && b[i + 1] == '\n') {
        return i;
      }
    }
    throw new IllegalStateException("truncated reply in script");
  }

  private static long parseLong(byte[] b, int from, int to) {
    return Long.parseLong(new String(b, from, to - from, StandardCharsets.US_ASCII));
  }

  private static byte[] copy(byte[] b, int from, int to) {
    byte[] out = new byte[to - from];
    System.arraycopy(b, from, out, 0, out.length);
    return out;
  }

  /**
   * Writes a script's result {@code v} as Redis does, {@code resp} being the protocol the script
   * set ({@code redis.setresp}); nesting is bounded against stack abuse.
   */
  static void write(LuaValue v, ReplyWriter out, int resp) {
    write(v, out, resp, 0);
  }

  private static void write(LuaValue v, ReplyWriter out, int resp, int depth) {
    if (depth > 64) {
      out.error("ERR reached lua stack limit");
      return;
    }
    switch (v.type()) {
      case LuaValue.TNUMBER -> out.integer(toLongLong(v.todouble()));
      case LuaValue.TSTRING -> out.bulk(bytes(v.checkstring()));
      case LuaValue.TBOOLEAN -> {
        if (resp == 3) {
          out.bool(v.toboolean());
        } else if (v.toboolean()) {
          out.integer(1);
        } else {
          out.nullBulk();
        }
      }
      case LuaValue.TTABLE -> {
        LuaValue err = v.rawget(ERR_FIELD);
        if (err.isstring()) {
          error(out, v, errorText(err.tojstring()));
          return;
        }
        LuaValue ok = v.rawget(OK_FIELD);
        if (ok.isstring()) {
          out.simple(ok.tojstring().replace('\r', ' ').replace('\n', ' '));
          return;
        }
        if (writeTyped(v, out, resp, depth)) {
          return;
        }
        int n = 0;
        while (!v.rawget(n + 1).isnil()) {
          n++;
        }
        out.array(n);
        for (int i = 1; i <= n; i++) {
          write(v.rawget(i), out, resp, depth + 1);
        }
      }
      default -> out.nullBulk();
    }
  }

  /**
   * A table naming a RESP3 type by its field ({@code double}, {@code big_number}, {@code
   * verbatim_string}, {@code map}, {@code set}, checked in Redis's order); false if it names none.
   */
  private static boolean writeTyped(LuaValue v, ReplyWriter out, int resp, int depth) {
    LuaValue d = v.rawget(DOUBLE_FIELD);
    if (d.type() == LuaValue.TNUMBER) {
      out.doubleValue(Scores.format(d.todouble()));
      return true;
    }
    LuaValue big = v.rawget(BIG_NUMBER_FIELD);
    if (big.type() == LuaValue.TSTRING) {
      out.bigNumber(big.tojstring().replace('\r', ' ').replace('\n', ' '));
      return true;
    }
    LuaValue verbatim = v.rawget(VERBATIM_FIELD);
    if (verbatim.istable()) {
      LuaValue format = verbatim.rawget(FORMAT_FIELD);
      LuaValue text = verbatim.rawget(STRING_FIELD);
      if (format.type() == LuaValue.TSTRING
          && text.type() == LuaValue.TSTRING
          && format.checkstring().m_length == 3) {
        out.verbatim(format.tojstring(), bytes(text.checkstring()));
        return true;
      }
    }
    LuaValue map = v.rawget(MAP_FIELD);
    if (map.istable()) {
      java.util.List<LuaValue[]> pairs = new java.util.ArrayList<>();
      for (LuaValue k = map.next(LuaValue.NIL).arg1(); !k.isnil(); k = map.next(k).arg1()) {
        pairs.add(new LuaValue[] {k, map.rawget(k)});
      }
      out.map(pairs.size());
      for (LuaValue[] pair : pairs) {
        write(pair[0], out, resp, depth + 1);
        write(pair[1], out, resp, depth + 1);
      }
      return true;
    }
    LuaValue set = v.rawget(SET_FIELD);
    if (set.istable()) {
      java.util.List<LuaValue> members = new java.util.ArrayList<>();
      for (LuaValue k = set.next(LuaValue.NIL).arg1(); !k.isnil(); k = set.next(k).arg1()) {
        members.add(k);
      }
      out.set(members.size());
      for (LuaValue member : members) {
        write(member, out, resp, depth + 1);
      }
      return true;
    }
    return false;
  }

  /**
   * Redis's {@code (long long)} cast of a Lua number, as x86-64 does it: truncated toward zero, and
   * the "integer indefinite" value (the smallest long) for what does not fit or is NaN, where
   * Java's cast would saturate.
   */
  static long toLongLong(double d) {
    if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) {
      return Long.MIN_VALUE;
    }
    return (long) d;
  }

  /** An error text as a reply carries it: one line. */
  static String errorText(String text) {
    return text.replace('\r', ' ').replace('\n', ' ');
  }

  static byte[] bytes(LuaString s) {
    byte[] out = new byte[s.m_length];
    s.copyInto(0, out, 0, s.m_length);
    return out;
  }

  /** Writes an error reply, counting it unless a called command counted it (see COUNTED_FIELD). */
  static void error(ReplyWriter out, LuaValue error, String text) {
    if (error.istable() && error.rawget(COUNTED_FIELD).toboolean()) {
      out.errorCounted(text);
    } else {
      out.error(text);
    }
  }
}
