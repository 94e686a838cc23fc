package dev.cellar.server.command;

import dev.cellar.server.command.Subscriptions.Kind;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.List;
import java.util.Locale;

/**
 * Pub/sub: SUBSCRIBE PSUBSCRIBE SSUBSCRIBE, their UNSUBSCRIBEs, PUBLISH SPUBLISH and PUBSUB, with
 * Redis 7.2's replies. Confirmations and messages are pushes ({@code >}) in RESP3 and arrays in
 * RESP2; a RESP2 client with subscriptions may only run the commands {@link
 * PubSub#allowedWhileSubscribed} names (the dispatcher enforces it). Shard channels are a namespace
 * of their own, as in a Redis that is not a cluster.
 */
final class PubSubCommands {
  private PubSubCommands() {}

  static void register(CommandTable t) {
    t.add(
            "subscribe",
            -2,
            "pubsub noscript loading stale",
            0,
            0,
            0,
            "pubsub",
            "Listens for messages published to channels.",
            (s, r, o) -> subscribe(s, r, o, Kind.CHANNEL))
        .add(
            "psubscribe",
            -2,
            "pubsub noscript loading stale",
            0,
            0,
            0,
            "pubsub",
            "Listens for messages published to channels that match one or more patterns.",
            (s, r, o) -> subscribe(s, r, o, Kind.PATTERN))
        .add(
            "ssubscribe",
            -2,
            "pubsub noscript loading stale",
            1,
            -1,
            1,
            "pubsub",
            "Listens for messages published to shard channels.",
            (s, r, o) -> subscribe(s, r, o, Kind.SHARD))
        .add(
            "unsubscribe",
            -1,
            "pubsub noscript loading stale",
            0,
            0,
            0,
            "pubsub",
            "Stops listening to messages posted to channels.",
            (s, r, o) -> unsubscribe(s, r, o, Kind.CHANNEL))
        .add(
            "punsubscribe",
            -1,
            "pubsub noscript loading stale",
            0,
            0,
            0,
            "pubsub",
            "Stops listening to messages published to channels that match one or more patterns.",
            (s, r, o) -> unsubscribe(s, r, o, Kind.PATTERN))
        .add(
            "sunsubscribe",
            -1,
            "pubsub noscript loading stale",
            1,
            -1,
            1,
            "pubsub",
            "Stops listening to messages posted to shard channels.",
            (s, r, o) -> unsubscribe(s, r, o, Kind.SHARD))
        .add(
            "publish",
            3,
            "pubsub loading stale fast may_replicate",
            0,
            0,
            0,
            "pubsub",
            "Posts a message to a channel.",
            (s, r, o) ->
                o.integer(s.server().pubsub().publish(Kind.CHANNEL, r.bytes(1), r.bytes(2))))
        .add(
            "spublish",
            3,
            "pubsub loading stale fast may_replicate",
            1,
            1,
            1,
            "pubsub",
            "Posts a message to a shard channel.",
            (s, r, o) -> o.integer(s.server().pubsub().publish(Kind.SHARD, r.bytes(1), r.bytes(2))))
        .add(
            "pubsub",
            -2,
            "",
            0,
            0,
            0,
            "pubsub",
            "A container for Pub/Sub commands.",
            PubSubCommands::pubsub);
  }

  private static void subscribe(Session s, Request r, ReplyWriter out, Kind kind) {
    s.answerIsPush(); // confirmations are pushes: CLIENT REPLY OFF does not silence them
    if (!s.channel().canPush()) {
      throw new CommandError(
          "ERR "
              + kind.name().toLowerCase(Locale.ROOT)
              + " subscriptions need a connection the server can push to: subscribe over RESP"
              + " (TCP or shared memory), not HTTP");
    }
    PubSub hub = s.server().pubsub();
    for (int i = 1; i < r.argc(); i++) {
      ChannelName name = new ChannelName(r.bytes(i));
      hub.subscribe(s, kind, name);
      confirm(out, kind.subscribe, name.bytes(), s.subscriptions(true).replyCount(kind));
    }
  }

  private static void unsubscribe(Session s, Request r, ReplyWriter out, Kind kind) {
    s.answerIsPush(); // confirmations are pushes: CLIENT REPLY OFF does not silence them
    PubSub hub = s.server().pubsub();
    Subscriptions subs = s.subscriptions(false);
    if (r.argc() == 1) {
      List<ChannelName> all = subs == null ? List.of() : List.copyOf(subs.of(kind));
      if (all.isEmpty()) {
        confirm(out, kind.unsubscribe, null, subs == null ? 0 : subs.replyCount(kind));
      }
      for (ChannelName name : all) {
        hub.unsubscribe(s, kind, name);
        confirm(out, kind.unsubscribe, name.bytes(), s.subscriptions(false).replyCount(kind));
      }
      return;
    }
    for (int i = 1; i < r.argc(); i++) {
      ChannelName name = new ChannelName(r.bytes(i));
      hub.unsubscribe(s, kind, name);
      Subscriptions now = s.subscriptions(false);
      confirm(out, kind.unsubscribe, name.bytes(), now == null ? 0 : now.replyCount(kind));
    }
  }

  /** {@code [subscribe|unsubscribe|..., channel or null, count]}, a push in RESP3. */
  private static void confirm(ReplyWriter out, byte[] what, byte[] name, int count) {
    out.push(3);
    out.bulk(what);
    if (name == null) {
      out.nullBulk();
    } else {
      out.bulk(name);
    }
    out.integer(count);
  }

  private static void pubsub(Session s, Request r, ReplyWriter out) {
    PubSub hub = s.server().pubsub();
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("pubsub", sub);
    switch (sub) {
      case "channels", "shardchannels" -> {
        if (r.argc() > 3) {
          // Redis's own check, after the command table's (at least 2): its syntax error.
          throw new CommandError(
              "ERR unknown subcommand or wrong number of arguments for '"
                  + r.string(1)
                  + "'. Try PUBSUB HELP.");
        }
        Kind kind = sub.equals("channels") ? Kind.CHANNEL : Kind.SHARD;
        List<byte[]> names = hub.active(kind, r.argc() == 3 ? r.bytes(2) : null);
        out.array(names.size());
        for (byte[] name : names) {
          out.bulk(name);
        }
      }
      case "numsub", "shardnumsub" -> {
        Kind kind = sub.equals("numsub") ? Kind.CHANNEL : Kind.SHARD;
        out.array((r.argc() - 2) * 2L);
        for (int i = 2; i < r.argc(); i++) {
          out.bulk(r.buffer(), r.offset(i), r.length(i));
          out.integer(hub.subscribers(kind, r.bytes(i)));
        }
      }
      case "numpat" -> {
        if (r.argc() != 2) {
          throw CommandError.arity("pubsub|numpat");
        }
        out.integer(hub.patternCount());
      }
      case "help" -> {
        String[] lines = {
          "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
          "CHANNELS [<pattern>]",
          "    Return the currently active channels matching a <pattern> (default: '*').",
          "NUMPAT",
          "    Return number of subscriptions to patterns.",
          "NUMSUB [<channel> ...]",
          "    Return the number of subscribers for the specified channels, excluding",
          "    pattern subscriptions(default: no channels).",
          "SHARDCHANNELS [<pattern>]",
          "    Return the currently active shard level channels matching a <pattern> (default: '*').",
          "SHARDNUMSUB [<shardchannel> ...]",
          "    Return the number of subscribers for the specified shard level channel(s)",
          "HELP",
          "    Print this help."
        };
        out.simpleLines(lines);
      }
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try PUBSUB HELP.");
    }
  }
}
