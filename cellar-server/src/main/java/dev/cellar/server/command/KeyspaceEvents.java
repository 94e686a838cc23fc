package dev.cellar.server.command;

import static dev.cellar.server.config.KeyspaceEventFlags.KEYEVENT;
import static dev.cellar.server.config.KeyspaceEventFlags.KEYSPACE;

import dev.cellar.Cellar;
import dev.cellar.server.command.Subscriptions.Kind;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications ({@code notify-keyspace-events}): a command that changes a key publishes
 * what it did, as Redis does, to {@code __keyspace@<db>__:<key>} (the event's name as the message)
 * and to {@code __keyevent@<db>__:<event>} (the key as the message), through {@link PubSub}, where
 * {@code <db>} is the database the command runs in.
 *
 * <p>Commands call {@link #notify} where Redis calls {@code notifyKeyspaceEvent}, with the same
 * class and event name, after the change and inside the key's lock, so that the events of one key
 * come in the order its changes were made. When notifications are off (the default) a call costs
 * one volatile read; the key is copied only when an event is published.
 *
 * <p>{@code expired} comes from {@link ActiveExpiry}, {@code evicted} from {@link MemoryGuard}.
 */
final class KeyspaceEvents {
  private static final byte[] KEYSPACE_PREFIX =
      "__keyspace@0__:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] KEYEVENT_PREFIX =
      "__keyevent@0__:".getBytes(StandardCharsets.US_ASCII);

  private KeyspaceEvents() {}

  /** Whether events of class {@code type} are published now. */
  static boolean wants(ServerContext server, int type) {
    int flags = server.config().notifyKeyspaceEvents();
    return (flags & type) != 0 && (flags & (KEYSPACE | KEYEVENT)) != 0;
  }

  /** Publishes {@code event} of class {@code type} on the key that is argument {@code i}. */
  static void notify(ServerContext server, int type, String event, Request r, int i) {
    if (type != dev.cellar.server.config.KeyspaceEventFlags.KEY_MISS) {
      server.watches().touch(r, i); // a modification: Redis signals the key where it notifies
      if (type != dev.cellar.server.config.KeyspaceEventFlags.NEW && server.tracking().active()) {
        server.tracking().invalidate(r.bytes(i)); // and invalidates its cached copies
      }
      if (server.blocked().any()) {
        server.blocked().signal(r.bytes(i)); // a group reader learns of a deletion or a new type
      }
    }
    if (wants(server, type)) {
      publish(server, event, r.bytes(i));
    }
  }

  static void notify(ServerContext server, int type, String event, byte[] key) {
    if (type != dev.cellar.server.config.KeyspaceEventFlags.KEY_MISS) {
      server.watches().touch(key);
      if (type != dev.cellar.server.config.KeyspaceEventFlags.NEW) {
        server.tracking().invalidate(key);
      }
      if (server.blocked().any()) {
        server.blocked().signal(key);
      }
    }
    if (wants(server, type)) {
      publish(server, event, key);
    }
  }

  /**
   * Publishes the events of a write to the key that is argument {@code i}: {@code new} first when
   * the write created the key, then {@code event} of class {@code type}, as Redis's {@code setKey}
   * and the command's own notification do.
   */
  static void written(
      ServerContext server, Request r, int i, boolean created, int type, String event) {
    if (created) {
      notify(server, dev.cellar.server.config.KeyspaceEventFlags.NEW, "new", r, i);
    }
    notify(server, type, event, r, i);
  }

  /**
   * A read found no key that is argument {@code i}: Redis's {@code keymiss} event, published where
   * Redis's read lookups publish it (not by writes, nor by OBJECT).
   */
  static void miss(ServerContext server, Request r, int i) {
    notify(server, dev.cellar.server.config.KeyspaceEventFlags.KEY_MISS, "keymiss", r, i);
  }

  /**
   * Whether the key is absent before a write that may create it, so that the write can publish
   * {@code new}; asked of the store only when {@code new} events are wanted.
   */
  static boolean absentBefore(ServerContext server, Request r, int i) {
    // The key's slice is made only when the answer is needed: made before the call, it relied on
    // the JIT inlining this method to remove an allocation per SET (GarbageFreePathTest).
    return wants(server, dev.cellar.server.config.KeyspaceEventFlags.NEW)
        && server.store().expiryOf(r.segment(i)) == Cellar.ABSENT;
  }

  /** {@link #absentBefore(ServerContext, Request, int)} for a key given as a segment. */
  static boolean absentBefore(ServerContext server, MemorySegment key) {
    return wants(server, dev.cellar.server.config.KeyspaceEventFlags.NEW)
        && server.store().expiryOf(key) == Cellar.ABSENT;
  }

  private static void publish(ServerContext server, String event, byte[] key) {
    int flags = server.config().notifyKeyspaceEvents();
    byte[] name = event.getBytes(StandardCharsets.US_ASCII);
    int db = server.databaseIndex();
    if ((flags & KEYSPACE) != 0) {
      byte[] prefix = db == 0 ? KEYSPACE_PREFIX : prefix("__keyspace@", db);
      server.pubsub().publish(Kind.CHANNEL, concat(prefix, key), name);
    }
    if ((flags & KEYEVENT) != 0) {
      byte[] prefix = db == 0 ? KEYEVENT_PREFIX : prefix("__keyevent@", db);
      server.pubsub().publish(Kind.CHANNEL, concat(prefix, name), key);
    }
  }

  private static byte[] prefix(String kind, int db) {
    return (kind + db + "__:").getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }
}
