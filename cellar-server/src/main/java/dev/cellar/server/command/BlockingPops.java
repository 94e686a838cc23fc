package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * What the popping commands of lists and sorted sets share: pop from the first of several keys that
 * has something ({@code BLPOP}, {@code LMPOP}, {@code BZPOPMIN}, {@code ZMPOP}...), and if none
 * has, wait for one ({@link BlockedClients}) or answer nil; their timeouts; and the {@code numkeys
 * key... <end> [COUNT n]} arguments of the {@code *MPOP} commands.
 */
final class BlockingPops {
  private BlockingPops() {}

  /** Pops from one key and answers, or answers nothing and returns false if it holds nothing. */
  @FunctionalInterface
  interface Popper {
    boolean popFrom(Session s, ReplyWriter out, byte[] key);
  }

  /** The arguments of an {@code *MPOP}: keys, which end, how many. */
  record MultiPop(List<byte[]> keys, boolean first, long count, long timeout) {}

  /**
   * A blocking command's timeout in seconds (a float, as C's {@code strtold} reads one: hexadecimal
   * too), as milliseconds; 0 waits forever.
   */
  static long timeoutMillis(Request r, int i) {
    double seconds;
    try {
      String text = r.string(i);
      if (HEX_WITHOUT_EXPONENT.matcher(text).matches()) {
        text += "p0"; // strtold takes 0x1F; Java's parser wants the binary exponent
      }
      if (!FLOAT_TEXT.matcher(text).matches()) {
        throw new NumberFormatException(text);
      }
      String body = text.replaceFirst("^[+-]", "");
      seconds =
          body.equalsIgnoreCase("inf") || body.equalsIgnoreCase("infinity")
              ? (text.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
              : Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new CommandError("ERR timeout is not a float or out of range");
    }
    // inf is a float to strtold: past the range (or negative) below, as Redis words it
    if (seconds < 0) {
      throw new CommandError("ERR timeout is negative");
    }
    if (seconds * 1000 > Long.MAX_VALUE / 2) {
      throw new CommandError("ERR timeout is out of range");
    }
    long ms = (long) Math.ceil(seconds * 1000);
    return seconds > 0 && ms == 0 ? 1 : ms;
  }

  private static final java.util.regex.Pattern HEX_WITHOUT_EXPONENT =
      java.util.regex.Pattern.compile("[+-]?0[xX](\\p{XDigit}+\\.?\\p{XDigit}*|\\.\\p{XDigit}+)");

  /** What strtold reads whole, less what Java alone would take (a trailing d or f, NaN). */
  private static final java.util.regex.Pattern FLOAT_TEXT =
      java.util.regex.Pattern.compile(
          "[+-]?((\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?"
              + "|0[xX](\\p{XDigit}+\\.?\\p{XDigit}*|\\.\\p{XDigit}+)[pP][+-]?\\d+"
              + "|(?i:inf|infinity))");

  /** The keys of {@code BLPOP}-like commands: arguments 1 to argc - 2, the timeout last. */
  static List<byte[]> keysBeforeTimeout(Request r) {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 1; i < r.argc() - 1; i++) {
      keys.add(r.bytes(i));
    }
    return keys;
  }

  /**
   * Parses {@code [timeout] numkeys key... <firstEnd|lastEnd> [COUNT n]}; the timeout is there if
   * {@code blocking} (-1 otherwise, meaning no wait).
   */
  static MultiPop parseMulti(Request r, boolean blocking, String firstEnd, String lastEnd) {
    int at = 1;
    long timeout = -1;
    if (blocking) {
      timeout = timeoutMillis(r, 1);
      at = 2;
    }
    if (!r.isLong(at) || r.longValue(at) <= 0) {
      throw new CommandError("ERR numkeys should be greater than 0");
    }
    long numkeys = r.longValue(at);
    if (numkeys > r.argc() - at - 2) {
      throw CommandError.SYNTAX;
    }
    List<byte[]> keys = new ArrayList<>();
    for (int i = at + 1; i <= at + numkeys; i++) {
      keys.add(r.bytes(i));
    }
    int i = at + 1 + (int) numkeys;
    boolean first;
    if (r.is(i, firstEnd)) {
      first = true;
    } else if (r.is(i, lastEnd)) {
      first = false;
    } else {
      throw CommandError.SYNTAX;
    }
    i++;
    long count = 1;
    boolean countSeen = false;
    while (i < r.argc()) {
      if (r.is(i, "count") && i + 1 < r.argc() && !countSeen) {
        if (!r.isLong(i + 1) || r.longValue(i + 1) <= 0) {
          throw new CommandError("ERR count should be greater than 0");
        }
        count = r.longValue(i + 1);
        countSeen = true;
        i += 2;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    return new MultiPop(keys, first, count, timeout);
  }

  /**
   * Pops with {@code popper} from the first of {@code keys} that has something, under their locks;
   * if none has, blocks for {@code timeout} (when it is not -1, and not inside a transaction or
   * script, where nothing blocks) or answers a null array. A key of the wrong type is an error at
   * once, but once blocked, the client goes on waiting through it, as Redis serves a blocked client
   * only from a key of the type it waits for ({@code BZPOPMIN} stays blocked when its key becomes a
   * string), unless {@code wrongTypeAnswers} (a stream's group reader is told).
   */
  static void popFirst(Session s, ReplyWriter out, List<byte[]> keys, long timeout, Popper popper) {
    popFirst(s, out, keys, timeout, popper, false);
  }

  static void popFirst(
      Session s,
      ReplyWriter out,
      List<byte[]> keys,
      long timeout,
      Popper popper,
      boolean wrongTypeAnswers) {
    ServerContext server = s.server();
    int[] stripes = new int[keys.size()];
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = KeyLocks.stripe(keys.get(i), 0, keys.get(i).length);
    }
    int[] locking = stripes.clone(); // lockAll sorts it in place; the retries start anew
    int locked = server.locks().lockAll(locking, locking.length);
    try {
      if (tryEach(s, out, keys, popper, false)) {
        return;
      }
      if (timeout < 0 || server.inAtomicRun()) {
        out.nullArray();
        return;
      }
      server
          .blocked()
          .block(
              s,
              keys,
              timeout,
              new BlockedClients.Attempt() {
                @Override
                public boolean retry(ReplyWriter o) {
                  int[] again = stripes.clone();
                  int n = server.locks().lockAll(again, again.length);
                  try {
                    return tryEach(s, o, keys, popper, !wrongTypeAnswers);
                  } catch (CommandError e) {
                    o.error(e.getMessage());
                    return true;
                  } finally {
                    server.locks().unlockAll(again, n);
                  }
                }

                @Override
                public void timedOut(ReplyWriter o) {
                  o.nullArray();
                }

                @Override
                public boolean onNoKey() {
                  return wrongTypeAnswers; // a group reader, told when its stream goes
                }
              });
    } finally {
      server.locks().unlockAll(locking, locked);
    }
  }

  /**
   * Pops from the first of {@code keys} that has something; with {@code skipWrongType}, a key of
   * the wrong type counts as holding nothing (the popper checks the type before it changes
   * anything).
   */
  private static boolean tryEach(
      Session s, ReplyWriter out, List<byte[]> keys, Popper popper, boolean skipWrongType) {
    for (byte[] key : keys) {
      try {
        if (popper.popFrom(s, out, key)) {
          return true;
        }
      } catch (CommandError e) {
        if (!skipWrongType || e != CommandError.WRONG_TYPE) {
          throw e;
        }
      }
    }
    return false;
  }
}
