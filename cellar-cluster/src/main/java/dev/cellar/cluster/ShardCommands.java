package dev.cellar.cluster;

import dev.cellar.Cellar;
import dev.cellar.WriteBatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The commands a shard's state machine applies, on the replica's store: what each does to the
 * store, as one {@link WriteBatch} the caller writes atomically with the entry's log index, and the
 * RESP2 reply the client gets. Knows nothing of Raft.
 *
 * <p>Every replica applies the same entries in the same order to the same state, so an entry must
 * decide the same on each: no clock is read here except through a key's expiry (see
 * docs/cluster.md, "Expiry"), and {@code SET}'s expiry arrives absolute ({@code PXAT}).
 *
 * <p>Keys starting with {@link #RESERVED_PREFIX} are the state machine's own (its applied index)
 * and are refused to clients.
 */
final class ShardCommands {
  /** The first byte of the state machine's own keys; a client's key may not start with it. */
  static final byte RESERVED_PREFIX = 0;

  private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NIL = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);

  /** What applying a command does: the reply, and the writes (null when nothing changes). */
  record Outcome(byte[] reply, WriteBatch writes) {}

  private final Cellar store;

  ShardCommands(Cellar store) {
    this.store = store;
  }

  /** Applies the write command {@code args}: its outcome, an error reply if it is refused. */
  Outcome apply(List<byte[]> args) {
    String name = new String(args.get(0), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    try {
      refuseReservedKeys(name, args);
      return switch (name) {
        case "set" -> set(args);
        case "del", "unlink" -> delete(args);
        case "incr" -> incrementBy(args, 2, 1);
        case "decr" -> incrementBy(args, 2, -1);
        case "incrby" -> incrementBy(args, 3, parseLong(args.get(2)));
        case "decrby" -> incrementBy(args, 3, negate(parseLong(args.get(2))));
        default -> new Outcome(error("ERR unknown command '" + name + "' for a shard"), null);
      };
    } catch (CommandRefused refused) {
      return new Outcome(error(refused.getMessage()), null);
    }
  }

  /** Answers the read command {@code args} from the store as it is. */
  byte[] read(List<byte[]> args) {
    String name = new String(args.get(0), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    try {
      refuseReservedKeys(name, args);
      return switch (name) {
        case "get" -> {
          arity(args, 2);
          yield bulk(store.get(args.get(1)));
        }
        case "exists" -> {
          if (args.size() < 2) {
            throw arityError(name);
          }
          long n = 0;
          for (int i = 1; i < args.size(); i++) {
            n += store.contains(args.get(i)) ? 1 : 0;
          }
          yield integer(n);
        }
        default -> error("ERR unknown command '" + name + "' for a shard read");
      };
    } catch (CommandRefused refused) {
      return error(refused.getMessage());
    }
  }

  /** {@code SET key value [PXAT ms] [NX|XX]}. */
  private Outcome set(List<byte[]> args) {
    if (args.size() < 3) {
      throw arityError("set");
    }
    long expireAt = Cellar.NO_EXPIRY;
    boolean nx = false;
    boolean xx = false;
    for (int i = 3; i < args.size(); i++) {
      String option = new String(args.get(i), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
      switch (option) {
        case "nx" -> nx = true;
        case "xx" -> xx = true;
        case "pxat" -> {
          if (++i == args.size()) {
            throw new CommandRefused("ERR syntax error");
          }
          expireAt = parseLong(args.get(i));
          if (expireAt <= 0) {
            throw new CommandRefused("ERR invalid expire time in 'set' command");
          }
        }
        default ->
            throw new CommandRefused(
                "ERR syntax error (a shard applies SET with PXAT, NX and XX only;"
                    + " relative expiries are made absolute before the entry is proposed)");
      }
    }
    if (nx && xx) {
      throw new CommandRefused("ERR syntax error");
    }
    byte[] key = args.get(1);
    if (nx || xx) {
      boolean exists = store.contains(key);
      if (nx == exists) {
        return new Outcome(NIL, null);
      }
    }
    return new Outcome(OK, new WriteBatch(2).put(key, args.get(2), expireAt));
  }

  private Outcome delete(List<byte[]> args) {
    if (args.size() < 2) {
      throw arityError("del");
    }
    WriteBatch writes = new WriteBatch(args.size());
    long removed = 0;
    for (int i = 1; i < args.size(); i++) {
      byte[] key = args.get(i);
      if (store.contains(key) && !deletedEarlier(args, i)) {
        writes.delete(key);
        removed++;
      }
    }
    return new Outcome(integer(removed), removed == 0 ? null : writes);
  }

  /** Whether {@code args[i]} is also an earlier key of the same {@code DEL}: counted once. */
  private static boolean deletedEarlier(List<byte[]> args, int i) {
    for (int j = 1; j < i; j++) {
      if (java.util.Arrays.equals(args.get(j), args.get(i))) {
        return true;
      }
    }
    return false;
  }

  private Outcome incrementBy(List<byte[]> args, int arity, long delta) {
    arity(args, arity);
    byte[] key = args.get(1);
    // The expiry first: a key that expires between the two reads then reads as absent, and
    // starts from 0 with no expiry, as it would had it expired before both.
    long expiry = store.expiryOf(key);
    byte[] current = expiry == Cellar.ABSENT ? null : store.get(key);
    long value = current == null ? 0 : parseLong(current);
    long next;
    try {
      next = Math.addExact(value, delta);
    } catch (ArithmeticException overflow) {
      throw new CommandRefused("ERR increment or decrement would overflow");
    }
    byte[] encoded = Long.toString(next).getBytes(StandardCharsets.US_ASCII);
    // INCR keeps the key's time to live, as in Redis.
    long keep = current == null ? Cellar.NO_EXPIRY : expiry;
    return new Outcome(integer(next), new WriteBatch(2).put(key, encoded, keep));
  }

  private static void refuseReservedKeys(String name, List<byte[]> args) {
    for (int i = 1; i < args.size(); i++) {
      byte[] arg = args.get(i);
      // Only key positions matter, but no command here takes a value starting with a NUL in a
      // key position, and a value starting with one is a key in no command: check the keys.
      if (isKeyPosition(name, i) && arg.length > 0 && arg[0] == RESERVED_PREFIX) {
        throw new CommandRefused("ERR keys starting with a NUL byte are reserved in a cluster");
      }
    }
  }

  private static boolean isKeyPosition(String name, int i) {
    return switch (name) {
      case "del", "unlink", "exists" -> true;
      default -> i == 1;
    };
  }

  private static void arity(List<byte[]> args, int arity) {
    if (args.size() != arity) {
      throw arityError(new String(args.get(0), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT));
    }
  }

  private static CommandRefused arityError(String name) {
    return new CommandRefused("ERR wrong number of arguments for '" + name + "' command");
  }

  private static long parseLong(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.US_ASCII);
    // Redis's string2ll: no sign but '-', no leading zeros, no spaces, at most 20 characters.
    if (bytes.length == 0
        || bytes.length > 20
        || text.startsWith("+")
        || (text.length() > 1 && text.startsWith("0"))
        || text.startsWith("-0")) {
      throw new CommandRefused("ERR value is not an integer or out of range");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new CommandRefused("ERR value is not an integer or out of range");
    }
  }

  private static long negate(long value) {
    if (value == Long.MIN_VALUE) {
      throw new CommandRefused("ERR decrement would overflow");
    }
    return -value;
  }

  static byte[] bulk(byte[] value) {
    if (value == null) {
      return NIL;
    }
    byte[] head = ("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[head.length + value.length + 2];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(value, 0, out, head.length, value.length);
    out[out.length - 2] = '\r';
    out[out.length - 1] = '\n';
    return out;
  }

  static byte[] integer(long n) {
    return (":" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] error(String message) {
    return ("-" + message + "\r\n").getBytes(StandardCharsets.UTF_8);
  }

  /** A command refused with an error reply; changes nothing. */
  private static final class CommandRefused extends RuntimeException {
    CommandRefused(String message) {
      super(message, null, false, false);
    }
  }
}
