package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The messages of client-side caching on the wire ({@link Tracking}; docs/format/resp.md,
 * "Pushes"), in Redis's shapes:
 *
 * <ul>
 *   <li>to a RESP3 client: the push {@code [invalidate, keys]}, keys an array of bulk strings, or
 *       null after a flush;
 *   <li>to a RESP2 client that a tracking client redirects to and that is subscribed: the pub/sub
 *       message {@code [message, __redis__:invalidate, keys]}, keys as above (a null bulk string
 *       after a flush); a RESP2 client that is not subscribed gets nothing, as in Redis;
 *   <li>to a RESP3 tracking client whose redirect's client has gone, once: {@code
 *       [tracking-redir-broken, id]}.
 * </ul>
 */
final class InvalidationMessage {
  static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REDIR_BROKEN =
      "tracking-redir-broken".getBytes(StandardCharsets.US_ASCII);

  private InvalidationMessage() {}

  /** About what a message of {@code keys} takes, for the client's output limit. */
  static long estimate(List<byte[]> keys) {
    long bytes = 64;
    if (keys != null) {
      for (byte[] k : keys) {
        bytes += k.length + 16L;
      }
    }
    return bytes;
  }

  /**
   * Writes the invalidation of {@code keys} (null: everything) to {@code to}, the tracking client
   * or ({@code redirected}) the client it redirects to.
   */
  static void write(ReplyWriter out, Session to, boolean redirected, List<byte[]> keys) {
    if (out.protocol() >= 3) {
      out.push(2);
      out.bulk(INVALIDATE);
    } else if (redirected && to.subscribed()) {
      out.push(3);
      out.bulk(MESSAGE);
      out.bulk(CHANNEL);
    } else {
      return; // RESP2 has no pushes on a connection that is not subscribed: nothing reaches it
    }
    if (keys == null) {
      out.nullBulk();
      return;
    }
    out.array(keys.size());
    for (byte[] k : keys) {
      out.bulk(k);
    }
  }

  /** Tells a RESP3 tracking client that its redirect's client {@code id} has gone. */
  static void redirectBroken(ReplyWriter out, long id) {
    if (out.protocol() >= 3) {
      out.push(2);
      out.bulk(REDIR_BROKEN);
      out.integer(id);
    }
  }
}
