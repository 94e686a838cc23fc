package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;
import static dev.cellar.server.config.KeyspaceEventFlags.STRING;

import dev.cellar.Cellar;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;

/**
 * Bitmaps over string values: SETBIT GETBIT BITCOUNT BITPOS BITOP, with Redis 7.2's replies and
 * errors (ranges in bytes or bits, negative indexes from the end, a missing key read as an empty
 * string of zero bits). Bit 0 is the most significant bit of the first byte, as in Redis. A bit
 * offset may address up to {@code proto-max-bulk-len} bytes, the largest value the server takes;
 * writes grow the value with zero bytes and keep its expiry. BITFIELD and LCS have classes of their
 * own ({@link BitfieldCommand}, {@link LcsCommand}).
 */
final class BitCommands {
  private BitCommands() {}

  static final String BIT_OFFSET_ERROR = "ERR bit offset is not an integer or out of range";

  static void register(CommandTable t) {
    t.add(
            "setbit",
            4,
            "write denyoom",
            1,
            1,
            1,
            "bitmap",
            "Sets or clears the bit at offset of the string value. Creates the key if it doesn't"
                + " exist.",
            BitCommands::setbit)
        .add(
            "getbit",
            3,
            "readonly fast",
            1,
            1,
            1,
            "bitmap",
            "Returns a bit value by offset.",
            BitCommands::getbit)
        .add(
            "bitcount",
            -2,
            "readonly",
            1,
            1,
            1,
            "bitmap",
            "Counts the number of set bits (population counting) in a string.",
            BitCommands::bitcount)
        .add(
            "bitpos",
            -3,
            "readonly",
            1,
            1,
            1,
            "bitmap",
            "Finds the first set (1) or clear (0) bit in a string.",
            BitCommands::bitpos)
        .add(
            "bitop",
            -4,
            "write denyoom",
            2,
            -1,
            1,
            "bitmap",
            "Performs bitwise operations on multiple strings, and stores the result.",
            BitCommands::bitop)
        .add(
            "bitfield",
            -2,
            "write denyoom",
            1,
            1,
            1,
            "bitmap",
            "Performs arbitrary bitfield integer operations on strings.",
            (s, r, o) -> BitfieldCommand.run(s, r, o, false))
        .add(
            "bitfield_ro",
            -2,
            "readonly fast",
            1,
            1,
            1,
            "bitmap",
            "Performs arbitrary read-only bitfield integer operations on strings.",
            (s, r, o) -> BitfieldCommand.run(s, r, o, true))
        .add(
            "lcs",
            -3,
            "readonly",
            1,
            2,
            1,
            "string",
            "Finds the longest common substring.",
            LcsCommand::run);
  }

  /**
   * Redis's {@code getBitOffsetFromArgument}: a bit offset, or with {@code hash} a {@code #n} field
   * index times {@code bits}; refused when negative or past the largest value the server takes.
   */
  static long bitOffset(ServerContext server, Request r, int i, boolean hash, int bits) {
    byte[] b = r.buffer();
    int at = r.offset(i);
    int length = r.length(i);
    boolean fields = hash && bits > 0 && length > 1 && b[at] == '#';
    if (fields) {
      at++;
      length--;
    }
    if (!dev.cellar.server.resp.Numbers.isLong(b, at, length)) {
      throw new CommandError(BIT_OFFSET_ERROR);
    }
    long offset = dev.cellar.server.resp.Numbers.parseLong(b, at, length);
    if (fields) {
      try {
        offset = Math.multiplyExact(offset, bits);
      } catch (ArithmeticException e) {
        throw new CommandError(BIT_OFFSET_ERROR);
      }
    }
    if (offset < 0 || (offset >>> 3) >= server.config().maxBulkLength()) {
      throw new CommandError(BIT_OFFSET_ERROR);
    }
    return offset;
  }

  static void getbit(Session s, Request r, ReplyWriter out) {
    long offset = bitOffset(s.server(), r, 2, false, 0);
    long byteAt = offset >>> 3;
    Integer bit =
        s.server()
            .store()
            .read(
                r.segment(1),
                v ->
                    byteAt < v.byteSize()
                        ? (v.get(java.lang.foreign.ValueLayout.JAVA_BYTE, byteAt)
                                >> (7 - (offset & 7)))
                            & 1
                        : 0);
    if (bit == null) {
      Values.absentOrWrongType(s.server().store(), r.segment(1));
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    out.integer(bit == null ? 0 : bit);
  }

  static void setbit(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    long offset = bitOffset(server, r, 2, false, 0);
    if (!r.isLong(3) || (r.longValue(3) & ~1L) != 0) {
      throw new CommandError("ERR bit is not an integer or out of range");
    }
    int on = (int) r.longValue(3);
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      byte[] value = current == null ? new byte[0] : current.value();
      int byteAt = (int) (offset >>> 3);
      boolean grown = byteAt >= value.length;
      if (grown) {
        value = java.util.Arrays.copyOf(value, byteAt + 1);
      }
      int shift = 7 - (int) (offset & 7);
      int old = (value[byteAt] >> shift) & 1;
      if (grown || old != on) {
        value[byteAt] = (byte) ((value[byteAt] & ~(1 << shift)) | (on << shift));
        Values.rewrite(server.store(), key, value, current);
        KeyspaceEvents.written(server, r, 1, current == null, STRING, "setbit");
      }
      server.rawStrings().mark(server, r.bytes(1)); // changed or not, as Redis unshares it
      out.integer(old);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** A range of a value in bytes, with masks for the bits outside it in its first and last byte. */
  private record Range(long start, long end, int firstMask, int lastMask) {
    boolean empty() {
      return start > end;
    }
  }

  /**
   * Redis's range arithmetic for BITCOUNT and BITPOS: negative indexes count from the end, the
   * range is clamped to the value, and a range in bits becomes one in bytes with masks for the bits
   * of its edge bytes that lie outside it.
   */
  private static Range range(long start, long end, boolean bits, long length) {
    long total = bits ? length << 3 : length;
    if (start < 0) {
      start = total + start;
    }
    if (end < 0) {
      end = total + end;
    }
    start = Math.max(0, start);
    end = Math.max(0, end);
    if (end >= total) {
      end = total - 1;
    }
    int firstMask = 0;
    int lastMask = 0;
    if (bits && start <= end) {
      firstMask = ~((1 << (8 - (int) (start & 7))) - 1) & 0xFF;
      lastMask = (1 << (7 - (int) (end & 7))) - 1;
      start >>= 3;
      end >>= 3;
    }
    return new Range(start, end, firstMask, lastMask);
  }

  /** BYTE or BIT at argument {@code i}; anything else is a syntax error. */
  private static boolean unitIsBit(Request r, int i) {
    if (r.is(i, "bit")) {
      return true;
    }
    if (r.is(i, "byte")) {
      return false;
    }
    throw CommandError.SYNTAX;
  }

  private static long longArg(Request r, int i) {
    if (!r.isLong(i)) {
      throw CommandError.NOT_INTEGER;
    }
    return r.longValue(i);
  }

  static void bitcount(Session s, Request r, ReplyWriter out) {
    int argc = r.argc();
    if (argc != 2 && argc != 4 && argc != 5) {
      throw CommandError.SYNTAX;
    }
    // Redis 7.2 checks the arguments before it looks the key up.
    long start = argc > 2 ? longArg(r, 2) : 0;
    long end = argc > 2 ? longArg(r, 3) : -1;
    boolean bits = argc == 5 && unitIsBit(r, 4);
    byte[] value = Values.get(s.server().store(), r.segment(1));
    if (value == null) {
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    if (value == null || (argc > 2 && start < 0 && end < 0 && start > end)) {
      out.integer(0);
      return;
    }
    Range range = range(start, end, bits, value.length);
    if (range.empty()) {
      out.integer(0);
      return;
    }
    long count = 0;
    for (long i = range.start(); i <= range.end(); i++) {
      count += Integer.bitCount(value[(int) i] & 0xFF);
    }
    count -= Integer.bitCount(value[(int) range.start()] & range.firstMask());
    count -= Integer.bitCount(value[(int) range.end()] & range.lastMask());
    out.integer(count);
  }

  static void bitpos(Session s, Request r, ReplyWriter out) {
    int argc = r.argc();
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long bit = r.longValue(2);
    if (bit != 0 && bit != 1) {
      throw new CommandError("ERR The bit argument must be 1 or 0.");
    }
    if (argc > 6) {
      throw CommandError.SYNTAX;
    }
    long start = argc > 3 ? longArg(r, 3) : 0;
    boolean bits = argc == 6 && unitIsBit(r, 5);
    boolean endGiven = argc >= 5;
    long end = endGiven ? longArg(r, 4) : 0;
    byte[] value = Values.get(s.server().store(), r.segment(1));
    if (value == null) {
      KeyspaceEvents.miss(s.server(), r, 1);
      // A missing key is an endless run of zero bits.
      out.integer(bit == 1 ? -1 : 0);
      return;
    }
    if (!endGiven) {
      end = bits ? ((long) value.length << 3) + 7 : value.length - 1L;
    }
    Range range =
        argc > 3 ? range(start, end, bits, value.length) : new Range(0, value.length - 1L, 0, 0);
    out.integer(range.empty() ? -1 : position(value, range, (int) bit, endGiven));
  }

  /** Redis's BITPOS search over a non-empty range, edge masks and the padding rule included. */
  private static long position(byte[] p, Range range, int bit, boolean endGiven) {
    long start = range.start();
    long end = range.end();
    long bytes = end - start + 1;
    long pos;
    found:
    {
      if (range.firstMask() != 0) {
        int b = bit == 1 ? p[(int) start] & ~range.firstMask() : p[(int) start] | range.firstMask();
        if (range.lastMask() != 0 && bytes == 1) {
          b = bit == 1 ? b & ~range.lastMask() : b | range.lastMask();
        }
        pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
        if (bytes == 1 || (pos != -1 && pos != 8)) {
          break found;
        }
        start++;
        bytes--;
      }
      long whole = bytes - (range.lastMask() != 0 ? 1 : 0);
      if (whole > 0) {
        pos = firstBit(p, start, whole, bit);
        if (bytes == whole || (pos != -1 && pos != whole << 3)) {
          break found;
        }
        start += whole;
        bytes -= whole;
      }
      int b = bit == 1 ? p[(int) end] & ~range.lastMask() : p[(int) end] | range.lastMask();
      pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
    }
    if (endGiven && bit == 0 && pos == bytes << 3) {
      return -1; // no clear bit inside an explicit range: the padding after it does not count
    }
    return pos == -1 ? -1 : pos + (start << 3);
  }

  /**
   * Redis's {@code redisBitpos}: the first bit equal to {@code bit} in {@code count} bytes from
   * {@code from}; when there is none, -1 for a set bit and {@code count * 8} (the first bit after
   * them, as if the value went on with zeros) for a clear one.
   */
  private static long firstBit(byte[] p, long from, long count, int bit) {
    for (long i = 0; i < count; i++) {
      int b = p[(int) (from + i)] & 0xFF;
      int x = bit == 1 ? b : ~b & 0xFF;
      if (x != 0) {
        return (i << 3) + Integer.numberOfLeadingZeros(x) - 24;
      }
    }
    return bit == 1 ? -1 : count << 3;
  }

  static void bitop(Session s, Request r, ReplyWriter out) {
    String op = r.string(1).toLowerCase(java.util.Locale.ROOT);
    if (!op.equals("and") && !op.equals("or") && !op.equals("xor") && !op.equals("not")) {
      throw CommandError.SYNTAX;
    }
    if (op.equals("not") && r.argc() != 4) {
      throw new CommandError("ERR BITOP NOT must be called with a single source key.");
    }
    ServerContext server = s.server();
    int keys = r.argc() - 2;
    int[] stripes = new int[keys];
    for (int k = 0; k < keys; k++) {
      stripes[k] = stripe(r, 2 + k);
    }
    int locked = server.locks().lockAll(stripes, keys);
    try {
      byte[][] sources = new byte[r.argc() - 3][];
      int length = 0;
      for (int k = 0; k < sources.length; k++) {
        byte[] v = Values.get(server.store(), r.segment(3 + k));
        if (v == null) {
          KeyspaceEvents.miss(server, r, 3 + k);
        }
        sources[k] = v == null ? new byte[0] : v;
        length = Math.max(length, sources[k].length);
      }
      MemorySegment target = r.segment(2);
      if (length == 0) {
        if (server.store().delete(target)) {
          KeyspaceEvents.notify(server, GENERIC, "del", r, 2);
        }
        out.integer(0);
        return;
      }
      byte[] result = new byte[length];
      for (int i = 0; i < length; i++) {
        int acc = byteAt(sources[0], i);
        for (int k = 1; k < sources.length; k++) {
          int b = byteAt(sources[k], i);
          acc =
              switch (op) {
                case "and" -> acc & b;
                case "or" -> acc | b;
                default -> acc ^ b;
              };
        }
        result[i] = (byte) (op.equals("not") ? ~acc : acc);
      }
      boolean created = KeyspaceEvents.absentBefore(server, target);
      server.store().put(target, MemorySegment.ofArray(result), Cellar.NO_EXPIRY);
      server.rawStrings().mark(server, r.bytes(2));
      KeyspaceEvents.written(server, r, 2, created, STRING, "set");
      out.integer(length);
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static int byteAt(byte[] v, int i) {
    return i < v.length ? v[i] & 0xFF : 0;
  }
}
