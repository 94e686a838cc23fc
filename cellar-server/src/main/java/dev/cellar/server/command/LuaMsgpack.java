package dev.cellar.server.command;

import java.io.ByteArrayOutputStream;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code cmsgpack} library Redis gives scripts (lua-cmsgpack's {@code pack}, {@code
 * unpack_one}, {@code unpack_limit} and {@code unpack}): MessagePack to and from Lua values, as
 * BullMQ's scripts read their options with it.
 *
 * <p>Packing follows lua-cmsgpack: a number with an integer value (within 64 bits) packs as the
 * smallest integer form, any other as a double (a float when it loses nothing); a string as a str
 * form; a table whose keys are exactly 1..n as an array, any other as a map. Unpacking takes every
 * MessagePack type lua-cmsgpack takes: integers and floats become numbers, str and bin strings,
 * arrays and maps tables, nil nil; an extension type, a truncated input or nesting past {@link
 * #MAX_DEPTH} is an error, so a hostile input cannot exhaust the stack.
 */
final class LuaMsgpack {
  private LuaMsgpack() {}

  private static final int MAX_DEPTH = 1000;

  /**
   * lua-cmsgpack's {@code LUACMSGPACK_MAX_NESTING}: a table this deep packs as nil, so a table that
   * refers to itself packs as sixteen copies deep rather than forever.
   */
  private static final int MAX_NESTING = 16;

  static LuaTable library() {
    LuaTable lib = new LuaTable();
    lib.set(
        "pack",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (args.narg() == 0) {
              throw new LuaError("MessagePack pack needs input.");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 1; i <= args.narg(); i++) {
              pack(args.arg(i), out, 0);
            }
            return LuaString.valueOf(out.toByteArray());
          }
        });
    lib.set(
        "unpack",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            byte[] in = LuaReplies.bytes(args.checkstring(1));
            Reader r = new Reader(in);
            java.util.List<LuaValue> values = new java.util.ArrayList<>();
            while (r.at < in.length) {
              values.add(r.value(0));
            }
            return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
          }
        });
    lib.set(
        "unpack_one",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            return unpackLimit(args.checkstring(1), 1, args.optint(2, 0));
          }
        });
    lib.set(
        "unpack_limit",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            return unpackLimit(args.checkstring(1), args.checkint(2), args.optint(3, 0));
          }
        });
    return lib;
  }

  /**
   * lua-cmsgpack's {@code unpack_limit}: at most {@code limit} values from byte {@code offset} on,
   * after the offset of the next value, or -1 when the input is used up.
   */
  private static Varargs unpackLimit(LuaString input, int limit, int offset) {
    byte[] in = LuaReplies.bytes(input);
    if (offset < 0 || limit < 0) {
      throw new LuaError(
          "Invalid request to unpack with offset of "
              + offset
              + " and limit of "
              + in.length
              + ".");
    }
    if (offset > in.length) {
      throw new LuaError(
          "Start offset " + offset + " greater than input length " + in.length + ".");
    }
    Reader r = new Reader(in);
    r.at = offset;
    java.util.List<LuaValue> values = new java.util.ArrayList<>();
    values.add(LuaValue.NIL); // the next offset, set below
    for (int i = 0; i < limit && r.at < in.length; i++) {
      values.add(r.value(0));
    }
    values.set(0, LuaValue.valueOf(r.at >= in.length ? -1 : r.at));
    return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
  }

  private static void pack(LuaValue v, ByteArrayOutputStream out, int depth) {
    if (v.istable() && depth >= MAX_NESTING) {
      out.write(0xc0); // lua-cmsgpack packs a table too deep as nil
      return;
    }
    switch (v.type()) {
      case LuaValue.TNIL -> out.write(0xc0);
      case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
      case LuaValue.TNUMBER -> number(v.todouble(), out);
      case LuaValue.TSTRING -> string(LuaReplies.bytes(v.checkstring()), out);
      case LuaValue.TTABLE -> table((LuaTable) v, out, depth);
      default -> out.write(0xc0);
    }
  }

  private static void number(double d, ByteArrayOutputStream out) {
    if (d == Math.rint(d) && !Double.isInfinite(d) && d >= -0x1p63 && d < 0x1p63) {
      long n = (long) d;
      if (n >= 0) {
        if (n < 128) {
          out.write((int) n);
        } else if (n < 256) {
          out.write(0xcc);
          out.write((int) n);
        } else if (n < 65536) {
          out.write(0xcd);
          big(out, n, 2);
        } else if (n < 4294967296L) {
          out.write(0xce);
          big(out, n, 4);
        } else {
          out.write(0xcf);
          big(out, n, 8);
        }
      } else if (n >= -32) {
        out.write((int) n & 0xff);
      } else if (n >= -128) {
        out.write(0xd0);
        out.write((int) n & 0xff);
      } else if (n >= -32768) {
        out.write(0xd1);
        big(out, n, 2);
      } else if (n >= -2147483648L) {
        out.write(0xd2);
        big(out, n, 4);
      } else {
        out.write(0xd3);
        big(out, n, 8);
      }
      return;
    }
    float f = (float) d;
    if ((double) f == d) {
      out.write(0xca);
      big(out, Float.floatToRawIntBits(f) & 0xffffffffL, 4);
    } else {
      out.write(0xcb);
      big(out, Double.doubleToRawLongBits(d), 8);
    }
  }

  private static void string(byte[] s, ByteArrayOutputStream out) {
    int n = s.length;
    if (n < 32) {
      out.write(0xa0 | n);
    } else if (n < 256) {
      out.write(0xd9);
      out.write(n);
    } else if (n < 65536) {
      out.write(0xda);
      big(out, n, 2);
    } else {
      out.write(0xdb);
      big(out, n, 4);
    }
    out.write(s, 0, n);
  }

  private static void table(LuaTable t, ByteArrayOutputStream out, int depth) {
    int length = t.length();
    int keys = 0;
    boolean array = true;
    for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
      keys++;
      if (!k.isinttype() || k.toint() < 1 || k.toint() > length) {
        array = false;
      }
    }
    array &= keys == length;
    if (array) {
      header(out, length, 0x90, 0xdc, 0xdd);
      for (int i = 1; i <= length; i++) {
        pack(t.get(i), out, depth + 1);
      }
      return;
    }
    header(out, keys, 0x80, 0xde, 0xdf);
    for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
      pack(k, out, depth + 1);
      pack(t.get(k), out, depth + 1);
    }
  }

  private static void header(ByteArrayOutputStream out, int n, int fix, int b16, int b32) {
    if (n < 16) {
      out.write(fix | n);
    } else if (n < 65536) {
      out.write(b16);
      big(out, n, 2);
    } else {
      out.write(b32);
      big(out, n, 4);
    }
  }

  private static void big(ByteArrayOutputStream out, long v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) {
      out.write((int) (v >>> (8 * i)) & 0xff);
    }
  }

  /** Reads values from a MessagePack input. */
  private static final class Reader {
    private final byte[] in;
    private int at;

    Reader(byte[] in) {
      this.in = in;
    }

    private int u8() {
      if (at >= in.length) {
        throw new LuaError("Missing bytes in input.");
      }
      return in[at++] & 0xff;
    }

    private long unsigned(int bytes) {
      long v = 0;
      for (int i = 0; i < bytes; i++) {
        v = (v << 8) | u8();
      }
      return v;
    }

    private long signed(int bytes) {
      long v = unsigned(bytes);
      int shift = 64 - 8 * bytes;
      return (v << shift) >> shift;
    }

    private LuaValue bytes(long n) {
      if (n < 0 || n > in.length - at) {
        throw new LuaError("Missing bytes in input.");
      }
      LuaString s = LuaString.valueOf(java.util.Arrays.copyOfRange(in, at, at + (int) n));
      at += (int) n;
      return s;
    }

    private static LuaValue integer(long n) {
      return n == (int) n ? LuaValue.valueOf((int) n) : LuaValue.valueOf((double) n);
    }

    LuaValue value(int depth) {
      if (depth > MAX_DEPTH) {
        throw new LuaError("MessagePack input nested too deeply.");
      }
      int b = u8();
      if (b <= 0x7f) {
        return LuaValue.valueOf(b);
      }
      if (b >= 0xe0) {
        return LuaValue.valueOf(b - 256);
      }
      if ((b & 0xe0) == 0xa0) {
        return bytes(b & 0x1f);
      }
      if ((b & 0xf0) == 0x90) {
        return array(b & 0x0f, depth);
      }
      if ((b & 0xf0) == 0x80) {
        return map(b & 0x0f, depth);
      }
      return switch (b) {
        case 0xc0 -> LuaValue.NIL;
        case 0xc2 -> LuaValue.FALSE;
        case 0xc3 -> LuaValue.TRUE;
        case 0xc4, 0xd9 -> bytes(unsigned(1));
        case 0xc5, 0xda -> bytes(unsigned(2));
        case 0xc6, 0xdb -> bytes(unsigned(4));
        case 0xca -> LuaValue.valueOf(Float.intBitsToFloat((int) unsigned(4)));
        case 0xcb -> LuaValue.valueOf(Double.longBitsToDouble(unsigned(8)));
        case 0xcc -> LuaValue.valueOf((int) unsigned(1));
        case 0xcd -> LuaValue.valueOf((int) unsigned(2));
        case 0xce -> integer(unsigned(4));
        case 0xcf -> {
          long v = unsigned(8);
          yield v >= 0
              ? integer(v)
              : LuaValue.valueOf(Double.parseDouble(Long.toUnsignedString(v)));
        }
        case 0xd0 -> integer(signed(1));
        case 0xd1 -> integer(signed(2));
        case 0xd2 -> integer(signed(4));
        case 0xd3 -> integer(signed(8));
        case 0xdc -> array(unsigned(2), depth);
        case 0xdd -> array(unsigned(4), depth);
        case 0xde -> map(unsigned(2), depth);
        case 0xdf -> map(unsigned(4), depth);
        default -> throw new LuaError("Bad data format in input.");
      };
    }

    private LuaValue array(long n, int depth) {
      if (n > in.length - at) {
        throw new LuaError("Missing bytes in input.");
      }
      LuaTable t = new LuaTable();
      for (int i = 1; i <= n; i++) {
        t.set(i, value(depth + 1));
      }
      return t;
    }

    private LuaValue map(long n, int depth) {
      if (2 * n > in.length - at) {
        throw new LuaError("Missing bytes in input.");
      }
      LuaTable t = new LuaTable();
      for (long i = 0; i < n; i++) {
        LuaValue k = value(depth + 1);
        LuaValue v = value(depth + 1);
        if (!k.isnil()) {
          t.set(k, v);
        }
      }
      return t;
    }
  }
}
