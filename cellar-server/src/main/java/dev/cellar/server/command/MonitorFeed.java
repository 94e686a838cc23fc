package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code MONITOR}: every command a client runs is sent to each monitoring connection as one line,
 * in Redis's format, {@code +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"}. As in Redis,
 * administrative commands (CONFIG, SHUTDOWN, SAVE, ...) are not shown and passwords read {@code
 * (redacted)}.
 *
 * <p>Cost when nobody monitors: the dispatcher reads one volatile boolean per command ({@link
 * #active}); the line is formatted only when it is true. The list of monitors is copy-on-write:
 * changed once per MONITOR or disconnect, read per command while anyone monitors.
 */
public final class MonitorFeed {
  private final CopyOnWriteArrayList<Session> monitors = new CopyOnWriteArrayList<>();
  private volatile boolean active;

  /** Whether anyone monitors: the one check on every command's path. */
  public boolean active() {
    return active;
  }

  void add(Session s) {
    monitors.addIfAbsent(s);
    active = true;
  }

  /** The session has gone (or was never monitoring). */
  public void remove(Session s) {
    if (monitors.remove(s)) {
      active = !monitors.isEmpty();
    }
  }

  public int count() {
    return monitors.size();
  }

  /**
   * Sends {@code request}, run by {@code from} in database {@code db}, to every monitor but {@code
   * from} itself. A script's commands come from its own session, whose address is {@code lua}, as
   * Redis shows them ({@code [9 lua] "set" "foo" "bar"}).
   */
  void feed(Session from, int db, Request request) {
    byte[] line = null;
    for (Session monitor : monitors) {
      if (monitor != from) {
        if (line == null) {
          line = line(from, db, request).getBytes(StandardCharsets.ISO_8859_1);
        }
        monitor.channel().push(line);
      }
    }
  }

  static String line(Session from, int db, Request request) {
    java.time.Instant now =
        java.time.Instant.now(); // microseconds on Linux, as gettimeofday gives Redis
    StringBuilder b = new StringBuilder(64).append('+').append(now.getEpochSecond()).append('.');
    String fraction = Long.toString(now.getNano() / 1000);
    b.append("0".repeat(6 - fraction.length()))
        .append(fraction)
        .append(" [")
        .append(db)
        .append(' ')
        .append(from.address())
        .append(']');
    boolean secret = Redaction.redacts(request);
    for (int i = 0; i < request.argc(); i++) {
      b.append(' ');
      if (secret && Redaction.isSecret(request, i)) {
        quote(b, Redaction.REDACTED, 0, Redaction.REDACTED.length);
      } else {
        quote(b, request.buffer(), request.offset(i), request.length(i));
      }
    }
    return b.append("\r\n").toString();
  }

  /**
   * Redis's {@code sdscatrepr}: a double-quoted string with C escapes, {@code \xHH} for the rest.
   */
  static void quote(StringBuilder b, byte[] bytes, int offset, int length) {
    b.append('"');
    for (int i = offset; i < offset + length; i++) {
      int c = bytes[i] & 0xff;
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '"' -> b.append("\\\"");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case 7 -> b.append("\\a");
        case '\b' -> b.append("\\b");
        default -> {
          if (c >= 0x20 && c < 0x7f) {
            b.append((char) c);
          } else {
            b.append("\\x")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          }
        }
      }
    }
    b.append('"');
  }
}
