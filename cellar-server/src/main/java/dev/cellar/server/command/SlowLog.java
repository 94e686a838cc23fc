package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code SLOWLOG}: the last {@code slowlog-max-len} commands that took at least {@code
 * slowlog-log-slower-than} microseconds, newest first, as Redis keeps them. An entry copies at most
 * 32 arguments of at most 128 bytes each (Redis's limits, with its "... (N more arguments)" and
 * "... (N more bytes)" markers), so a slow MSET of a million keys costs the log a few KiB, not its
 * whole request.
 *
 * <p>Concurrency: every event loop may record; entries are rare (a slow command), so one lock is
 * enough, and the fast path (a command under the threshold) never reaches this class: the
 * dispatcher compares the duration with the threshold first.
 */
public final class SlowLog {
  static final int MAX_ARGS = 32;
  static final int MAX_ARG_BYTES = 128;

  /** One slow command, with Redis's six fields. */
  public record Entry(
      long id, long unixSeconds, long micros, byte[][] argv, String address, String clientName) {}

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long nextId;

  /** Records {@code request}, which took {@code micros}, keeping at most {@code maxLen} entries. */
  void record(Session session, Request request, long micros, int maxLen) {
    byte[][] argv = argv(request);
    synchronized (this) {
      Entry entry =
          new Entry(
              nextId++,
              System.currentTimeMillis() / 1000,
              micros,
              argv,
              session.address(),
              session.name());
      entries.addFirst(entry);
      while (entries.size() > maxLen) {
        entries.removeLast();
      }
    }
  }

  private static byte[][] argv(Request request) {
    int argc = request.argc();
    int kept = Math.min(argc, MAX_ARGS);
    byte[][] argv = new byte[kept][];
    boolean secret = Redaction.redacts(request);
    for (int i = 0; i < kept; i++) {
      if (kept != argc && i == kept - 1) {
        argv[i] =
            ("... (" + (argc - kept + 1) + " more arguments)").getBytes(StandardCharsets.US_ASCII);
      } else if (secret && Redaction.isSecret(request, i)) {
        argv[i] = Redaction.REDACTED;
      } else {
        argv[i] = truncated(request, i);
      }
    }
    return argv;
  }

  private static byte[] truncated(Request request, int i) {
    int length = request.length(i);
    if (length <= MAX_ARG_BYTES) {
      return request.bytes(i);
    }
    byte[] head =
        Arrays.copyOfRange(request.buffer(), request.offset(i), request.offset(i) + MAX_ARG_BYTES);
    byte[] tail =
        ("... (" + (length - MAX_ARG_BYTES) + " more bytes)").getBytes(StandardCharsets.US_ASCII);
    byte[] all = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  /** The newest {@code count} entries (all of them when negative), newest first. */
  public synchronized List<Entry> newest(long count) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries) {
      if (count >= 0 && out.size() >= count) {
        break;
      }
      out.add(e);
    }
    return out;
  }

  public synchronized int size() {
    return entries.size();
  }

  public synchronized void reset() {
    entries.clear();
  }
}
