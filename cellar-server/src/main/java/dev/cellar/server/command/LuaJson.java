package dev.cellar.server.command;

import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code cjson} library Redis gives scripts, as lua-cjson behaves: {@code cjson.encode} and
 * {@code cjson.decode}, and {@code cjson.null}. A table whose keys are exactly 1..n encodes as an
 * array, any other (with string or number keys) as an object, an empty one as {@code {}}; numbers
 * that are integers print without a fraction, others with 14 significant digits. Depth is bounded
 * both ways (1000, lua-cjson's default), so a hostile document cannot exhaust the stack.
 *
 * <p>lua-cjson's settings are there too, kept per interpreter as lua-cjson keeps them per Lua state
 * (so a script that changes one changes it for the scripts after it on its event loop, as in
 * Redis): {@code encode_max_depth}, {@code decode_max_depth}, {@code encode_invalid_numbers}
 * ({@code nan}, {@code inf} or {@code null} for what is otherwise refused), {@code
 * encode_number_precision}, {@code encode_sparse_array} (a table with keys 1..n but mostly holes is
 * refused, or encoded as an object), {@code encode_keep_buffer} and {@code decode_invalid_numbers}
 * (accepted and reported; they change nothing here).
 */
final class LuaJson {
  private LuaJson() {}

  /** One interpreter's lua-cjson settings, with lua-cjson's defaults. */
  private static final class Settings {
    int encodeMaxDepth = 1000;
    int decodeMaxDepth = 1000;
    LuaValue encodeInvalidNumbers = LuaValue.FALSE; // false, true or "null"
    LuaValue decodeInvalidNumbers = LuaValue.TRUE;
    LuaValue keepBuffer = LuaValue.TRUE;
    int precision = 14;
    LuaValue sparseConvert = LuaValue.FALSE;
    int sparseRatio = 2;
    int sparseSafe = 10;
  }

  /** {@code cjson.null}: decodes JSON null, encodes as null. */
  static final LuaValue NULL = new LuaUserdata(new Object());

  static LuaTable library() {
    Settings settings = new Settings();
    LuaTable cjson = new LuaTable();
    cjson.set(
        "encode",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue v) {
            StringBuilder out = new StringBuilder();
            encode(settings, v, out, 0);
            return LuaString.valueOf(out.toString().getBytes(StandardCharsets.UTF_8));
          }
        });
    cjson.set(
        "decode",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue v) {
            byte[] text = LuaReplies.bytes(v.checkstring());
            return new Decoder(new String(text, StandardCharsets.UTF_8), settings.decodeMaxDepth)
                .document();
          }
        });
    cjson.set("null", NULL);
    cjson.set(
        "encode_max_depth",
        setting(
            "encode_max_depth", v -> settings.encodeMaxDepth = v, () -> settings.encodeMaxDepth));
    cjson.set(
        "decode_max_depth",
        setting(
            "decode_max_depth", v -> settings.decodeMaxDepth = v, () -> settings.decodeMaxDepth));
    cjson.set(
        "encode_number_precision",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (!args.arg1().isnil()) {
              settings.precision = integer(args.arg1(), "encode_number_precision", 1, 14);
            }
            return LuaValue.valueOf(settings.precision);
          }
        });
    cjson.set(
        "encode_invalid_numbers",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            LuaValue v = args.arg1();
            if (v.isboolean() || (v.isstring() && v.tojstring().equals("null"))) {
              settings.encodeInvalidNumbers = v;
            } else if (!v.isnil()) {
              throw new LuaError(
                  "bad argument #1 to 'encode_invalid_numbers' (invalid option '"
                      + v.tojstring()
                      + "')");
            }
            return settings.encodeInvalidNumbers;
          }
        });
    cjson.set(
        "decode_invalid_numbers",
        flag(v -> settings.decodeInvalidNumbers = v, () -> settings.decodeInvalidNumbers));
    cjson.set("encode_keep_buffer", flag(v -> settings.keepBuffer = v, () -> settings.keepBuffer));
    cjson.set(
        "encode_sparse_array",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (!args.arg1().isnil()) {
              settings.sparseConvert = LuaValue.valueOf(args.arg1().toboolean());
            }
            if (!args.arg(2).isnil()) {
              settings.sparseRatio =
                  integer(args.arg(2), "encode_sparse_array", 0, Integer.MAX_VALUE);
            }
            if (!args.arg(3).isnil()) {
              settings.sparseSafe =
                  integer(args.arg(3), "encode_sparse_array", 0, Integer.MAX_VALUE);
            }
            return LuaValue.varargsOf(
                settings.sparseConvert,
                LuaValue.valueOf(settings.sparseRatio),
                LuaValue.valueOf(settings.sparseSafe));
          }
        });
    return cjson;
  }

  /** A whole number in {@code min..max}, or lua-cjson's error for argument 1 of {@code name}. */
  private static int integer(LuaValue v, String name, int min, int max) {
    double d = v.isnumber() ? v.todouble() : Double.NaN;
    if (d != Math.rint(d) || d < min || d > max) {
      throw new LuaError(
          "bad argument #1 to '"
              + name
              + "' (expected integer between "
              + min
              + " and "
              + max
              + ")");
    }
    return (int) d;
  }

  /** A depth setting: sets it when given a number, returns it. */
  private static VarArgFunction setting(
      String option, java.util.function.IntConsumer set, java.util.function.IntSupplier get) {
    return new VarArgFunction() { // (its own field "name" would hide a parameter of that name)
      @Override
      public Varargs invoke(Varargs args) {
        if (!args.arg1().isnil()) {
          set.accept(integer(args.arg1(), option, 1, Integer.MAX_VALUE));
        }
        return LuaValue.valueOf(get.getAsInt());
      }
    };
  }

  /** An on/off setting: sets it when given one, returns it. */
  private static VarArgFunction flag(
      java.util.function.Consumer<LuaValue> set, java.util.function.Supplier<LuaValue> get) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        if (!args.arg1().isnil()) {
          set.accept(LuaValue.valueOf(args.arg1().toboolean()));
        }
        return get.get();
      }
    };
  }

  private static void encode(Settings settings, LuaValue v, StringBuilder out, int depth) {
    if (v == NULL || v.isnil()) {
      out.append("null");
      return;
    }
    switch (v.type()) {
      case LuaValue.TBOOLEAN -> out.append(v.toboolean());
      case LuaValue.TNUMBER -> number(settings, v.todouble(), out);
      case LuaValue.TSTRING -> string(v.tojstring(), out);
      case LuaValue.TTABLE -> table(settings, (LuaTable) v, out, depth + 1);
      default -> throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
    }
  }

  private static void number(Settings settings, double d, StringBuilder out) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      LuaValue mode = settings.encodeInvalidNumbers;
      if (mode.isstring()) {
        out.append("null");
      } else if (mode.toboolean()) {
        out.append(Double.isNaN(d) ? "nan" : d > 0 ? "inf" : "-inf"); // "%.14g", as Redis's has it
      } else {
        throw new LuaError("Cannot serialise number: must not be NaN or Inf");
      }
      return;
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15 && settings.precision == 14) {
      out.append((long) d);
    } else {
      String s = String.format("%." + settings.precision + "g", d);
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

  /** Encodes {@code t}, the {@code depth}th table down (1 for the value encoded). */
  private static void table(Settings settings, LuaTable t, StringBuilder out, int depth) {
    if (depth > settings.encodeMaxDepth) {
      throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
    }
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
    if (array
        && settings.sparseRatio > 0
        && length > count * (long) settings.sparseRatio
        && length > settings.sparseSafe) {
      if (!settings.sparseConvert.toboolean()) {
        throw new LuaError("Cannot serialise table: excessively sparse array");
      }
      array = false;
    }
    if (array) {
      out.append('[');
      for (int i = 1; i <= length; i++) {
        if (i > 1) {
          out.append(',');
        }
        encode(settings, t.rawget(i), out, depth);
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
      encode(settings, next.arg(2), out, depth);
    }
    out.append('}');
  }

  /** A recursive-descent JSON reader into Lua values. */
  private static final class Decoder {
    private final String s;
    private final int maxDepth;
    private int at;

    Decoder(String s, int maxDepth) {
      this.s = s;
      this.maxDepth = maxDepth;
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
      space();
      if (at >= s.length()) {
        throw error("value");
      }
      char c = s.charAt(at);
      if ((c == '{' || c == '[') && depth + 1 > maxDepth) {
        throw new LuaError(
            "Found too many nested data structures (" + (depth + 1) + ") at character " + (at + 1));
      }
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
