package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Error replies by their code, for {@code INFO errorstats} and {@code total_error_replies}, as
 * Redis counts them: every error a client is sent, by the word it starts with ({@code ERR}, {@code
 * WRONGTYPE}, {@code NOGROUP}...), an error raised by a script's {@code redis.call} once, when the
 * command failed, not again when the script passes it on.
 *
 * <p>Bounded as Redis bounds it: scripts can make up codes ({@code redis.error_reply}), so past
 * {@value #MAX_CODES} different codes the table is replaced by one {@code ERRORSTATS_DISABLED}
 * entry and stops growing until {@code CONFIG RESETSTAT}.
 */
public final class ErrorStats implements ReplyWriter.ErrorCounter {
  static final int MAX_CODES = 128;

  /** Redis looks for the code's end in the first 32 bytes only. */
  private static final int CODE_SCAN = 32;

  private final ConcurrentHashMap<String, LongAdder> byCode = new ConcurrentHashMap<>();
  private final LongAdder total = new LongAdder();
  private volatile boolean disabled;

  @Override
  public void count(String text) {
    total.increment();
    if (disabled) {
      return; // as Redis 7.4: nothing more by code until CONFIG RESETSTAT
    }
    String code = code(text);
    LongAdder n = byCode.get(code);
    if (n == null) {
      synchronized (this) {
        if (disabled) {
          return;
        }
        if (!byCode.containsKey(code) && byCode.size() >= MAX_CODES) {
          byCode.clear();
          byCode.computeIfAbsent("ERRORSTATS_DISABLED", c -> new LongAdder()).increment();
          disabled = true;
          return;
        }
        n = byCode.computeIfAbsent(code, c -> new LongAdder());
      }
    }
    n.increment();
  }

  /** The code of an error text: its first word, or {@code ERR} if none ends in 32 bytes. */
  static String code(String text) {
    int space = text.indexOf(' ');
    return space > 0 && space < CODE_SCAN ? text.substring(0, space) : "ERR";
  }

  public long total() {
    return total.sum();
  }

  /** The counts by code, in code order (as Redis lists them). */
  public Map<String, Long> byCode() {
    Map<String, Long> out = new TreeMap<>();
    byCode.forEach((code, n) -> out.put(code, n.sum()));
    return out;
  }

  /** {@code CONFIG RESETSTAT}. */
  public synchronized void reset() {
    byCode.clear();
    total.reset();
    disabled = false;
  }
}
