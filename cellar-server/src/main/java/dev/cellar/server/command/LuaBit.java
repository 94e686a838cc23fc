package dev.cellar.server.command;

import java.util.function.IntBinaryOperator;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code bit} library Redis gives scripts: LuaBitOp 1.0's functions ({@code tobit tohex bnot
 * band bor bxor lshift rshift arshift rol ror bswap}), with its rules: every argument becomes a
 * 32-bit integer (the number rounded to the nearest integer, ties to even, then taken modulo 2^32),
 * every result is that integer, signed. LuaJ's own {@code bit32} (Lua 5.2's) answers unsigned and
 * has no {@code tobit}, {@code tohex} or {@code bswap}, so scripts written for Redis failed on it.
 * {@code tohex} with the smallest 32-bit count answers as Redis's patched LuaBitOp does (eight
 * upper-case digits) rather than overflowing.
 */
final class LuaBit {
  private LuaBit() {}

  static LuaTable library() {
    LuaTable lib = new LuaTable();
    lib.set("tobit", unary(x -> x));
    lib.set("bnot", unary(x -> ~x));
    lib.set("bswap", unary(Integer::reverseBytes));
    lib.set("band", fold((a, b) -> a & b));
    lib.set("bor", fold((a, b) -> a | b));
    lib.set("bxor", fold((a, b) -> a ^ b));
    lib.set("lshift", shift((x, n) -> x << n));
    lib.set("rshift", shift((x, n) -> x >>> n));
    lib.set("arshift", shift((x, n) -> x >> n));
    lib.set("rol", shift(Integer::rotateLeft));
    lib.set("ror", shift(Integer::rotateRight));
    lib.set(
        "tohex",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            int x = bitArg(args, 1);
            int n = args.isnoneornil(2) ? 8 : bitArg(args, 2);
            if (n == Integer.MIN_VALUE) {
              n = Integer.MIN_VALUE + 1;
            }
            boolean upper = n < 0;
            n = Math.min(Math.abs(n), 8);
            String digits = String.format(upper ? "%08X" : "%08x", x);
            return LuaString.valueOf(digits.substring(8 - n));
          }
        });
    return lib;
  }

  /** LuaBitOp's {@code barg}: the number rounded half to even, modulo 2^32, as a signed int. */
  static int toBit(double d) {
    return (int) (long) Math.rint(d % 0x1p32);
  }

  private static int bitArg(Varargs args, int i) {
    LuaValue v = args.arg(i);
    if (!v.isnumber()) {
      throw new LuaError("bad argument #" + i + " (number expected, got " + v.typename() + ")");
    }
    return toBit(v.todouble());
  }

  private static VarArgFunction unary(java.util.function.IntUnaryOperator op) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaValue.valueOf(op.applyAsInt(bitArg(args, 1)));
      }
    };
  }

  private static VarArgFunction fold(IntBinaryOperator op) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        int result = bitArg(args, 1);
        for (int i = 2; i <= args.narg(); i++) {
          result = op.applyAsInt(result, bitArg(args, i));
        }
        return LuaValue.valueOf(result);
      }
    };
  }

  private static VarArgFunction shift(IntBinaryOperator op) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaValue.valueOf(op.applyAsInt(bitArg(args, 1), bitArg(args, 2) & 31));
      }
    };
  }
}
