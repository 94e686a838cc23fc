package dev.cellar.server.command;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One client's subscriptions: channels, patterns and shard channels, in the order it made them (an
 * {@code UNSUBSCRIBE} without arguments answers in that order, as Redis does).
 *
 * <p>Changed and read by the client's own thread (its event loop or agent), including when a
 * message is delivered there; the counts are also kept in volatile fields for {@code CLIENT LIST}
 * and {@code INFO}, read from other threads.
 */
final class Subscriptions {
  /** What a subscription is to: a kind of {@code SUBSCRIBE}, with the words its replies use. */
  enum Kind {
    CHANNEL("subscribe", "unsubscribe", "message"),
    PATTERN("psubscribe", "punsubscribe", "pmessage"),
    SHARD("ssubscribe", "sunsubscribe", "smessage");

    final byte[] subscribe;
    final byte[] unsubscribe;
    final byte[] message;

    Kind(String subscribe, String unsubscribe, String message) {
      this.subscribe = subscribe.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      this.unsubscribe = unsubscribe.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      this.message = message.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
  }

  private final Set<ChannelName> channels = new LinkedHashSet<>();
  private final Set<ChannelName> patterns = new LinkedHashSet<>();
  private final Set<ChannelName> shard = new LinkedHashSet<>();
  private volatile int channelCount;
  private volatile int patternCount;
  private volatile int shardCount;

  Set<ChannelName> of(Kind kind) {
    return switch (kind) {
      case CHANNEL -> channels;
      case PATTERN -> patterns;
      case SHARD -> shard;
    };
  }

  boolean has(Kind kind, ChannelName name) {
    return of(kind).contains(name);
  }

  /** Adds a subscription; false if the client already had it. */
  boolean add(Kind kind, ChannelName name) {
    boolean added = of(kind).add(name);
    recount();
    return added;
  }

  /** Removes a subscription; false if the client did not have it. */
  boolean remove(Kind kind, ChannelName name) {
    boolean removed = of(kind).remove(name);
    recount();
    return removed;
  }

  private void recount() {
    channelCount = channels.size();
    patternCount = patterns.size();
    shardCount = shard.size();
  }

  /**
   * The count a (un)subscription reply carries: channels and patterns together, shard channels
   * alone, as in Redis 7.
   */
  int replyCount(Kind kind) {
    return kind == Kind.SHARD ? shard.size() : channels.size() + patterns.size();
  }

  /** Whether any subscription is left: the client is in pub/sub mode while there is. */
  boolean any() {
    return channelCount + patternCount + shardCount > 0;
  }

  int channels() {
    return channelCount;
  }

  int patterns() {
    return patternCount;
  }

  int shardChannels() {
    return shardCount;
  }
}
