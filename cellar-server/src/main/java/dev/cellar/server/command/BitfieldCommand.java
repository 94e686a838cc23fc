package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.NEW;
import static dev.cellar.server.config.KeyspaceEventFlags.STRING;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code BITFIELD} and {@code BITFIELD_RO}: signed and unsigned integers of 1 to 64 bits (unsigned
 * to 63) at any bit offset of a string, read, written and incremented with Redis's overflow rules
 * ({@code WRAP}, {@code SAT}, {@code FAIL}, each applying to the operations after it).
 *
 * <p>Every operation is parsed before any runs, so a bad one changes nothing. Writes grow the value
 * with zero bytes up to the highest bit any write addresses, even one that then fails by overflow,
 * as in Redis; the value is stored once, at the end, with its expiry kept.
 */
final class BitfieldCommand {
  private BitfieldCommand() {}

  private enum Overflow {
    WRAP,
    SAT,
    FAIL
  }

  private enum Kind {
    GET,
    SET,
    INCRBY
  }

  private record Op(
      Kind kind, boolean signed, int bits, long offset, long value, Overflow overflow) {}

  static void run(Session s, Request r, ReplyWriter out, boolean readOnly) {
    ServerContext server = s.server();
    List<Op> ops = parse(server, r, readOnly);
    boolean writes = ops.stream().anyMatch(op -> op.kind() != Kind.GET);
    if (!writes) {
      byte[] value = Values.get(server.store(), r.segment(1));
      if (value == null) {
        KeyspaceEvents.miss(server, r, 1);
      }
      reply(out, ops, value == null ? new byte[0] : value, false, new int[1]);
      return;
    }
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      byte[] value = current == null ? new byte[0] : current.value();
      long highest = 0;
      for (Op op : ops) {
        if (op.kind() != Kind.GET) {
          highest = Math.max(highest, op.offset() + op.bits() - 1);
        }
      }
      boolean grown = (highest >>> 3) >= value.length;
      if (grown) {
        value = java.util.Arrays.copyOf(value, (int) (highest >>> 3) + 1);
      }
      int[] changes = {0};
      reply(out, ops, value, grown, changes);
      if (grown || changes[0] > 0) {
        Values.rewrite(server.store(), key, value, current);
        if (current == null) {
          KeyspaceEvents.notify(server, NEW, "new", r, 1);
        }
        if (changes[0] > 0) {
          KeyspaceEvents.notify(server, STRING, "setbit", r, 1);
        }
      }
      if (current != null || grown) {
        server.rawStrings().mark(server, r.bytes(1)); // any write op unshares it in Redis
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  private static List<Op> parse(ServerContext server, Request r, boolean readOnly) {
    List<Op> ops = new ArrayList<>();
    Overflow overflow = Overflow.WRAP;
    for (int i = 2; i < r.argc(); ) {
      int left = r.argc() - i - 1;
      Kind kind;
      if (r.is(i, "get") && left >= 2) {
        kind = Kind.GET;
      } else if (r.is(i, "set") && left >= 3) {
        kind = Kind.SET;
      } else if (r.is(i, "incrby") && left >= 3) {
        kind = Kind.INCRBY;
      } else if (r.is(i, "overflow") && left >= 1) {
        if (r.is(i + 1, "wrap")) {
          overflow = Overflow.WRAP;
        } else if (r.is(i + 1, "sat")) {
          overflow = Overflow.SAT;
        } else if (r.is(i + 1, "fail")) {
          overflow = Overflow.FAIL;
        } else {
          throw new CommandError("ERR Invalid OVERFLOW type specified");
        }
        i += 2;
        continue;
      } else {
        throw CommandError.SYNTAX;
      }
      String type = r.string(i + 1);
      boolean signed = type.length() > 1 && (type.charAt(0) == 'i' || type.charAt(0) == 'I');
      boolean unsigned = type.length() > 1 && (type.charAt(0) == 'u' || type.charAt(0) == 'U');
      int bits = -1;
      if ((signed || unsigned) && type.substring(1).matches("[1-9][0-9]?")) {
        bits = Integer.parseInt(type.substring(1));
      }
      if (bits < 1 || (signed && bits > 64) || (unsigned && bits > 63)) {
        throw new CommandError(
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported"
                + " but i64 is.");
      }
      long offset = BitCommands.bitOffset(server, r, i + 2, true, bits);
      long value = 0;
      if (kind != Kind.GET) {
        if (!r.isLong(i + 3)) {
          throw CommandError.NOT_INTEGER;
        }
        value = r.longValue(i + 3);
      }
      ops.add(new Op(kind, signed, bits, offset, value, overflow));
      i += kind == Kind.GET ? 3 : 4;
    }
    if (readOnly && ops.stream().anyMatch(op -> op.kind() != Kind.GET)) {
      throw new CommandError("ERR BITFIELD_RO only supports the GET subcommand");
    }
    return ops;
  }

  /**
   * Runs the operations on {@code value} in order and writes one reply element for each. A write
   * counts as a change, as in Redis, when it changes its bits or the value grew for the command.
   */
  private static void reply(
      ReplyWriter out, List<Op> ops, byte[] value, boolean grown, int[] changes) {
    out.array(ops.size());
    for (Op op : ops) {
      long old = get(value, op.offset(), op.bits());
      if (op.signed()) {
        old = signExtend(old, op.bits());
      }
      if (op.kind() == Kind.GET) {
        out.integer(old);
        continue;
      }
      long delta = op.kind() == Kind.SET ? 0 : op.value();
      long base = op.kind() == Kind.SET ? op.value() : old;
      long[] limit = new long[1];
      int overflow =
          op.signed()
              ? signedOverflow(base, delta, op.bits(), op.overflow(), limit)
              : unsignedOverflow(base, delta, op.bits(), op.overflow(), limit);
      long next = overflow != 0 ? limit[0] : base + delta;
      if (overflow != 0 && op.overflow() == Overflow.FAIL) {
        out.nullBulk();
        continue;
      }
      set(value, op.offset(), op.bits(), next);
      if (grown || old != next) {
        changes[0]++;
      }
      out.integer(op.kind() == Kind.SET ? old : next);
    }
  }

  /** The {@code bits} bits at {@code offset}, most significant first, as an unsigned number. */
  private static long get(byte[] p, long offset, int bits) {
    long v = 0;
    for (int i = 0; i < bits; i++) {
      long bit = offset + i;
      long byteAt = bit >>> 3;
      int b = byteAt < p.length ? (p[(int) byteAt] >> (7 - (int) (bit & 7))) & 1 : 0;
      v = (v << 1) | b;
    }
    return v;
  }

  private static void set(byte[] p, long offset, int bits, long value) {
    for (int i = 0; i < bits; i++) {
      int b = (int) ((value >>> (bits - 1 - i)) & 1);
      long bit = offset + i;
      int byteAt = (int) (bit >>> 3);
      int shift = 7 - (int) (bit & 7);
      p[byteAt] = (byte) ((p[byteAt] & ~(1 << shift)) | (b << shift));
    }
  }

  private static long signExtend(long v, int bits) {
    return bits < 64 && (v & (1L << (bits - 1))) != 0 ? v | (-1L << bits) : v;
  }

  /**
   * Redis's {@code checkUnsignedBitfieldOverflow}: 1 above the range, -1 below, 0 inside; on
   * overflow {@code limit} gets the wrapped or saturated result.
   */
  private static int unsignedOverflow(
      long value, long incr, int bits, Overflow owtype, long[] limit) {
    long max = (1L << bits) - 1; // bits <= 63
    long maxIncr = max - value;
    long minIncr = -value;
    if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) {
      if (owtype == Overflow.WRAP) {
        limit[0] = (value + incr) & max;
      } else if (owtype == Overflow.SAT) {
        limit[0] = max;
      }
      return 1;
    }
    if (incr < 0 && incr < minIncr) {
      if (owtype == Overflow.WRAP) {
        limit[0] = (value + incr) & max;
      } else if (owtype == Overflow.SAT) {
        limit[0] = 0;
      }
      return -1;
    }
    return 0;
  }

  /** Redis's {@code checkSignedBitfieldOverflow}; see {@link #unsignedOverflow}. */
  private static int signedOverflow(
      long value, long incr, int bits, Overflow owtype, long[] limit) {
    long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
    long min = -max - 1;
    long maxIncr = max - value; // may wrap; only used once value is known to be in range
    long minIncr = min - value;
    int result = 0;
    if (value > max
        || (bits != 64 && incr > maxIncr)
        || (value >= 0 && incr > 0 && incr > maxIncr)) {
      result = 1;
      if (owtype == Overflow.SAT) {
        limit[0] = max;
      }
    } else if (value < min
        || (bits != 64 && incr < minIncr)
        || (value < 0 && incr < 0 && incr < minIncr)) {
      result = -1;
      if (owtype == Overflow.SAT) {
        limit[0] = min;
      }
    }
    if (result != 0 && owtype == Overflow.WRAP) {
      long c = value + incr;
      if (bits < 64) {
        long mask = -1L << bits;
        c = (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
      }
      limit[0] = c;
    }
    return result;
  }
}
