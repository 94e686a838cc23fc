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
 *   <li>Lua to RESP2, for what a script returns: number to integer (truncated), string to bulk,
 *       {@code true} to 1, {@code false} and nil to null, a table with {@code ok} to a status, with
 *       {@code err} to an error, any other table to an array of its elements up to the first nil.
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

  /** Parses the one RESP2 reply in {@code b[0, end)} into a Lua value. */
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
      default ->
          throw new IllegalStateException("unexpected reply type '" + (char) type + "' in script");
    }
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

  /** Writes a script's result {@code v} as Redis does; nesting is bounded against stack abuse. */
  static void write(LuaValue v, ReplyWriter out) {
    write(v, out, 0);
  }

  private static void write(LuaValue v, ReplyWriter out, int depth) {
    if (depth > 64) {
      out.error("ERR reached lua stack limit");
      return;
    }
    switch (v.type()) {
      case LuaValue.TNUMBER -> out.integer(toLongLong(v.todouble()));
      case LuaValue.TSTRING -> out.bulk(bytes(v.checkstring()));
      case LuaValue.TBOOLEAN -> {
        if (v.toboolean()) {
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
        int n = 0;
        while (!v.rawget(n + 1).isnil()) {
          n++;
        }
        out.array(n);
        for (int i = 1; i <= n; i++) {
          write(v.rawget(i), out, depth + 1);
        }
      }
      default -> out.nullBulk();
    }
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
