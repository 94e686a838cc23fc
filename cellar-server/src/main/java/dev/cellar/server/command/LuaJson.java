package dev.cellar.server.command;

import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;

/**
 * The {@code cjson} library Redis gives scripts, as lua-cjson behaves: {@code cjson.encode} and
 * {@code cjson.decode}, and {@code cjson.null}. A table whose keys are exactly 1..n encodes as an
 * array, any other (with string or number keys) as an object, an empty one as {@code {}}; numbers
 * that are integers print without a fraction, others with 14 significant digits. Depth is bounded
 * both ways (1000, lua-cjson's default), so a hostile document cannot exhaust the stack.
 */
final class LuaJson {
  private LuaJson() {}

  private static final int MAX_DEPTH = 1000;

  /** {@code cjson.null}: decodes JSON null, encodes as null. */
  static final LuaValue NULL = new LuaUserdata(new Object());

  static LuaTable library() {
    LuaTable cjson = new LuaTable();
    cjson.set(
        "encode",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue v) {
            StringBuilder out = new StringBuilder();
            encode(v, out, 0);
            return LuaString.valueOf(out.toString().getBytes(StandardCharsets.UTF_8));
          }
        });
    cjson.set(
        "decode",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue v) {
            byte[] text = LuaReplies.bytes(v.checkstring());
            return new Decoder(new String(text, StandardCharsets.UTF_8)).document();
          }
        });
    cjson.set("null", NULL);
    return cjson;
  }

  private static void encode(LuaValue v, StringBuilder out, int depth) {
    if (depth > MAX_DEPTH) {
      throw new LuaError("Cannot serialise, excessive nesting (" + MAX_DEPTH + ")");
    }
    if (v == NULL || v.isnil()) {
      out.append("null");
      return;
    }
    switch (v.type()) {
      case LuaValue.TBOOLEAN -> out.append(v.toboolean());
      case LuaValue.TNUMBER -> number(v.todouble(), out);
      case LuaValue.TSTRING -> string(v.tojstring(), out);
      case LuaValue.TTABLE -> table((LuaTable) v, out, depth);
      default -> throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
    }
  }

  private static void number(double d, StringBuilder out) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new LuaError("Cannot serialise number: must not be NaN or Inf");
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      out.append((long) d);
    } else {
      String s = String.format("%.14g", d);
      if (s.contains("e")) {
        String[] parts = s.split("e");
        String mantissa = parts[0].contains(".") ? parts[0].replaceAll("0+$", "") : parts[0];
        mantissa = mantissa.endsWith(".") ? mantissa.substring(0, mantissa.length() - 1) : mantissa;
        int exp = Integer.parseInt(parts[1]);
        out.append(mantissa).append('e').append(exp < 0 ? "-" : "+");
        out.append(String.format("%02d", Math.abs(exp)));
      } else {
        String trimmed = s.contains(".") ? s.replaceAll("0+$", "") : s;
        out.append(trimmed.endsWith(".") ? trimmed.substring(0, trimmed.length() - 1) : trimmed);
      }
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '/' -> out.append("\\/");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void table(LuaTable t, StringBuilder out, int depth) {
    int length = 0;
    boolean array = true;
    int count = 0;
    LuaValue k = LuaValue.NIL;
    while (true) {
      Varargs next = t.next(k);
      k = next.arg1();
      if (k.isnil()) {
        break;
      }
      count++;
      if (k.type() == LuaValue.TNUMBER
          && k.todouble() == Math.rint(k.todouble())
          && k.todouble() >= 1) {
        length = Math.max(length, (int) k.todouble());
      } else {
        array = false;
      }
    }
    if (count == 0) {
      out.append("{}");
      return;
    }
    if (array && length <= count * 2 + 10) {
      out.append('[');
      for (int i = 1; i <= length; i++) {
        if (i > 1) {
          out.append(',');
        }
        encode(t.rawget(i), out, depth + 1);
      }
      out.append(']');
      return;
    }
    out.append('{');
    boolean first = true;
    k = LuaValue.NIL;
    while (true) {
      Varargs next = t.next(k);
      k = next.arg1();
      if (k.isnil()) {
        break;
      }
      if (!k.isstring()) {
        throw new LuaError(
            "Cannot serialise " + k.typename() + ": table key must be a number or string");
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      string(k.tojstring(), out);
      out.append(':');
      encode(next.arg(2), out, depth + 1);
    }
    out.append('}');
  }

  /** A recursive-descent JSON reader into Lua values. */
  private static final class Decoder {
    private final String s;
    private int at;

    Decoder(String s) {
      this.s = s;
    }

    LuaValue document() {
      LuaValue v = value(0);
      space();
      if (at != s.length()) {
        throw error("the end of the document");
      }
      return v;
    }

    private LuaError error(String expected) {
      return new LuaError(
          "Expected " + expected + " but found invalid token at character " + (at + 1));
    }

    private void space() {
      while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
        at++;
      }
    }

    private LuaValue value(int depth) {
      if (depth > MAX_DEPTH) {
        throw new LuaError("Found too many nested data structures (" + MAX_DEPTH + ")");
      }
      space();
      if (at >= s.length()) {
        throw error("value");
      }
      char c = s.charAt(at);
      switch (c) {
        case '{' -> {
          at++;
          LuaTable t = new LuaTable();
          space();
          if (peek('}')) {
            return t;
          }
          while (true) {
            space();
            if (at >= s.length() || s.charAt(at) != '"') {
              throw error("object key string");
            }
            LuaValue key = string();
            space();
            if (!peek(':')) {
              throw error("colon");
            }
            t.rawset(key, value(depth + 1));
            space();
            if (peek('}')) {
              return t;
            }
            if (!peek(',')) {
              throw error("comma or object end");
            }
          }
        }
        case '[' -> {
          at++;
          LuaTable t = new LuaTable();
          space();
          if (peek(']')) {
            return t;
          }
          for (int i = 1; ; i++) {
            t.rawset(i, value(depth + 1));
            space();
            if (peek(']')) {
              return t;
            }
            if (!peek(',')) {
              throw error("comma or array end");
            }
          }
        }
        case '"' -> {
          return string();
        }
        default -> {
          if (s.startsWith("true", at)) {
            at += 4;
            return LuaValue.TRUE;
          }
          if (s.startsWith("false", at)) {
            at += 5;
            return LuaValue.FALSE;
          }
          if (s.startsWith("null", at)) {
            at += 4;
            return NULL;
          }
          return number();
        }
      }
    }

    private boolean peek(char c) {
      if (at < s.length() && s.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private LuaValue number() {
      int start = at;
      while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
        at++;
      }
      try {
        return LuaValue.valueOf(Double.parseDouble(s.substring(start, at)));
      } catch (NumberFormatException e) {
        at = start;
        throw error("value");
      }
    }

    private LuaValue string() {
      at++; // the opening quote
      StringBuilder out = new StringBuilder();
      while (at < s.length()) {
        char c = s.charAt(at++);
        if (c == '"') {
          return LuaString.valueOf(out.toString().getBytes(StandardCharsets.UTF_8));
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= s.length()) {
          break;
        }
        char e = s.charAt(at++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            if (at + 4 > s.length()) {
              throw error("unicode escape");
            }
            try {
              out.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
            } catch (NumberFormatException x) {
              throw error("unicode escape");
            }
            at += 4;
          }
          default -> out.append(e);
        }
      }
      throw error("string end");
    }
  }
}
