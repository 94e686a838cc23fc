package dev.cellar.server.command;

import dev.cellar.server.command.Subscriptions.Kind;
import dev.cellar.server.config.Glob;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who listens to what, server-wide: the subscribers of each channel, pattern and shard channel, and
 * the delivery of a {@code PUBLISH} to them. Nothing here is persistent: as in Redis, a message
 * reaches the clients subscribed when it is published, and nobody else.
 *
 * <h2>Threads and order</h2>
 *
 * Clients live on several event loops, and a subscriber's output may only be written by its own
 * loop. So a message is handed to each subscriber's loop ({@link ClientChannel#deliver}), which
 * formats it in the subscriber's protocol and writes it after whatever that client was already
 * sent. Two rules give Redis's guarantees on top of that:
 *
 * <ul>
 *   <li><b>One order for everyone.</b> Publishing holds {@link #order} while it hands the message
 *       to every subscriber, and every loop runs what it is handed in order; so any two messages
 *       reach every client that receives both in the same order, as they do from Redis's single
 *       thread. A delivery is always queued, never written from the publisher's stack even when
 *       both share a loop, since a direct write would overtake messages already queued.
 *   <li><b>Nothing after an unsubscribe.</b> A delivery checks, on the subscriber's loop, that the
 *       client still holds the subscription it was sent for; one made before an {@code UNSUBSCRIBE}
 *       and run after it is dropped, so no message follows the unsubscribe confirmation.
 * </ul>
 *
 * <p>The maps are concurrent: sets are created and removed atomically per name ({@code compute}),
 * so a channel's last unsubscribe and another client's subscribe cannot lose either. A slow
 * subscriber's deliveries count against its output limit before they are queued (see the
 * transports), so a client that does not read is cut off instead of growing the server's memory.
 */
public final class PubSub {
  private static final Set<String> ALLOWED_WHILE_SUBSCRIBED =
      Set.of(
          "subscribe",
          "ssubscribe",
          "unsubscribe",
          "sunsubscribe",
          "psubscribe",
          "punsubscribe",
          "ping",
          "quit",
          "reset");

  private final Map<ChannelName, Set<Session>> channels = new ConcurrentHashMap<>();
  private final Map<ChannelName, Set<Session>> patterns = new ConcurrentHashMap<>();
  private final Map<ChannelName, Set<Session>> shard = new ConcurrentHashMap<>();
  private final ReentrantLock order = new ReentrantLock();

  /** What a RESP2 client may run while it has subscriptions, as in Redis. */
  static boolean allowedWhileSubscribed(CommandSpec spec) {
    return ALLOWED_WHILE_SUBSCRIBED.contains(spec.name());
  }

  private Map<ChannelName, Set<Session>> map(Kind kind) {
    return switch (kind) {
      case CHANNEL -> channels;
      case PATTERN -> patterns;
      case SHARD -> shard;
    };
  }

  /** Subscribes {@code s}; on its own thread. */
  void subscribe(Session s, Kind kind, ChannelName name) {
    if (s.subscriptions(true).add(kind, name)) {
      map(kind)
          .compute(
              name,
              (k, set) -> {
                Set<Session> sessions = set == null ? ConcurrentHashMap.newKeySet() : set;
                sessions.add(s);
                return sessions;
              });
    }
  }

  /** Unsubscribes {@code s}; on its own thread. False if it was not subscribed. */
  boolean unsubscribe(Session s, Kind kind, ChannelName name) {
    Subscriptions subs = s.subscriptions(false);
    if (subs == null || !subs.remove(kind, name)) {
      return false;
    }
    map(kind)
        .computeIfPresent(
            name,
            (k, set) -> {
              set.remove(s);
              return set.isEmpty() ? null : set;
            });
    return true;
  }

  /** The client has gone, or reset its connection: every subscription it held ends. */
  public void leave(Session s) {
    Subscriptions subs = s.subscriptions(false);
    if (subs == null) {
      return;
    }
    for (Kind kind : Kind.values()) {
      for (ChannelName name : List.copyOf(subs.of(kind))) {
        unsubscribe(s, kind, name);
      }
    }
  }

  /**
   * Sends {@code message} to the subscribers of {@code channel} (and, for a {@link Kind#CHANNEL},
   * of every pattern matching it); returns how many deliveries were made, counting a client once
   * per subscription that matched, as Redis's reply does.
   */
  int publish(Kind kind, byte[] channel, byte[] message) {
    ChannelName name = new ChannelName(channel);
    order.lock();
    try {
      int receivers = 0;
      Set<Session> direct = map(kind).get(name);
      if (direct != null) {
        for (Session s : direct) {
          deliver(s, kind, name, null, channel, message);
          receivers++;
        }
      }
      if (kind == Kind.CHANNEL && !patterns.isEmpty()) {
        for (Map.Entry<ChannelName, Set<Session>> e : patterns.entrySet()) {
          if (matches(e.getKey().bytes(), channel)) {
            for (Session s : e.getValue()) {
              deliver(s, Kind.PATTERN, e.getKey(), e.getKey().bytes(), channel, message);
              receivers++;
            }
          }
        }
      }
      return receivers;
    } finally {
      order.unlock();
    }
  }

  /**
   * Redis's glob; an empty channel matches only the empty pattern ({@code stringmatchlen} never
   * enters its loop for an empty string, where {@link Glob} lets a star match it).
   */
  static boolean matches(byte[] pattern, byte[] channel) {
    if (channel.length == 0) {
      return pattern.length == 0;
    }
    return Glob.matches(pattern, 0, pattern.length, channel, 0, channel.length);
  }

  /**
   * Holds back this thread's deliveries until {@link #release}: an EXEC's messages (its keyspace
   * events, its PUBLISHes) reach subscribers only once its writes are visible, as Redis's do after
   * its single thread ran the transaction. The publish counts stay those of the moment of
   * publishing.
   */
  boolean holdDeliveries() {
    if (held.get() != null) {
      return false; // already held by an enclosing run (a script inside an EXEC)
    }
    held.set(new ArrayList<>());
    return true;
  }

  /**
   * Ends {@link #holdDeliveries}: makes the held deliveries, in their order and under the lock that
   * orders every delivery (so every subscriber sees them in one place of the one order), or drops
   * them when the transaction was not applied. Only the call whose {@link #holdDeliveries} returned
   * true releases.
   */
  void release(boolean deliver) {
    List<Runnable> deliveries = held.get();
    held.remove();
    if (deliver && deliveries != null && !deliveries.isEmpty()) {
      order.lock();
      try {
        deliveries.forEach(Runnable::run);
      } finally {
        order.unlock();
      }
    }
  }

  private final ThreadLocal<List<Runnable>> held = new ThreadLocal<>();

  /**
   * Runs {@code delivery} now, or, inside a transaction or script whose deliveries are held, once
   * its writes are applied (and never if they are not): how {@link Tracking}'s invalidations keep
   * pace with the writes they announce.
   */
  void afterCommit(Runnable delivery) {
    List<Runnable> holding = held.get();
    if (holding != null) {
      holding.add(delivery);
    } else {
      delivery.run();
    }
  }

  private void deliver(
      Session to,
      Kind kind,
      ChannelName subscription,
      byte[] pattern,
      byte[] channel,
      byte[] message) {
    List<Runnable> holding = held.get();
    if (holding != null) {
      holding.add(() -> deliverNow(to, kind, subscription, pattern, channel, message));
    } else {
      deliverNow(to, kind, subscription, pattern, channel, message);
    }
  }

  private static void deliverNow(
      Session to,
      Kind kind,
      ChannelName subscription,
      byte[] pattern,
      byte[] channel,
      byte[] message) {
    long bytes = 64L + channel.length + message.length + (pattern == null ? 0 : pattern.length);
    to.channel()
        .deliver(
            bytes,
            out -> {
              Subscriptions subs = to.subscriptions(false);
              if (subs == null || !subs.has(kind, subscription)) {
                return; // unsubscribed after this was published: nothing follows the confirmation
              }
              out.push(pattern == null ? 3 : 4);
              out.bulk(kind.message);
              if (pattern != null) {
                out.bulk(pattern);
              }
              out.bulk(channel);
              out.bulk(message);
            });
  }

  /** The channels (or shard channels) with at least one subscriber, matching {@code pattern}. */
  List<byte[]> active(Kind kind, byte[] pattern) {
    List<byte[]> names = new ArrayList<>();
    for (ChannelName name : map(kind).keySet()) {
      if (pattern == null || matches(pattern, name.bytes())) {
        names.add(name.bytes());
      }
    }
    return names;
  }

  /** Subscribers of one channel (or shard channel); patterns are not counted, as in Redis. */
  int subscribers(Kind kind, byte[] channel) {
    Set<Session> set = map(kind).get(new ChannelName(channel));
    return set == null ? 0 : set.size();
  }

  /** Channels with subscribers ({@code INFO}'s {@code pubsub_channels}). */
  public int channelCount() {
    return channels.size();
  }

  /** Patterns with subscribers ({@code PUBSUB NUMPAT}, {@code INFO}'s {@code pubsub_patterns}). */
  public int patternCount() {
    return patterns.size();
  }

  /** Shard channels with subscribers ({@code INFO}'s {@code pubsubshard_channels}). */
  public int shardChannelCount() {
    return shard.size();
  }
}
