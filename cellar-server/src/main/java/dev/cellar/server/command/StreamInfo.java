package dev.cellar.server.command;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.GroupCounters;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamEntries.Entry;
import dev.cellar.server.collection.StreamGroups;
import dev.cellar.server.collection.StreamGroups.Consumer;
import dev.cellar.server.collection.StreamGroups.Group;
import dev.cellar.server.collection.StreamGroups.Pending;
import dev.cellar.server.collection.StreamId;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.List;

/**
 * {@code XINFO}: a stream's, its groups' and their consumers' state, in Redis 7.2's replies, {@code
 * XINFO STREAM key FULL [COUNT n]} included (entries, each group's pending entries and consumers,
 * up to {@code n} of each, 10 by default, 0 for all).
 */
final class StreamInfo {
  private StreamInfo() {}

  static void xinfo(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(java.util.Locale.ROOT);
    s.subcommand("xinfo", sub);
    if (sub.equals("help")) {
      out.simpleLines(
          new String[] {
            "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CONSUMERS <key> <groupname>",
            "GROUPS <key>",
            "STREAM <key> [FULL [COUNT <count>]",
            "HELP"
          });
      return;
    }
    if (!sub.equals("groups") && !sub.equals("consumers") && !sub.equals("stream")) {
      throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try XINFO HELP.");
    }
    ElementEdits edits = s.server().edits();
    StreamEntries stream = StreamCommands.open(edits, r.bytes(2));
    if (!stream.exists()) {
      throw new CommandError("ERR no such key");
    }
    StreamGroups groups = new StreamGroups(edits, stream.id());
    long now = System.currentTimeMillis();
    switch (sub) {
      case "groups" -> {
        GroupCounters counters = GroupCounters.of(stream);
        List<Group> all = groups.all(stream.info().groups());
        out.array(all.size());
        for (Group g : all) {
          out.map(6);
          out.bulk("name");
          out.bulk(g.name());
          out.bulk("consumers");
          out.integer(groups.consumers(g).size());
          out.bulk("pending");
          out.integer(g.pending());
          out.bulk("last-delivered-id");
          out.bulk(g.lastDelivered().toString());
          readAndLag(out, g, counters);
        }
      }
      case "consumers" -> {
        Group g = groups.group(r.string(3));
        if (g == null) {
          throw StreamGroupCommands.noGroup(r.string(2), r.string(3), null);
        }
        List<Consumer> all = groups.consumers(g);
        out.array(all.size());
        for (Consumer c : all) {
          out.map(4);
          out.bulk("name");
          out.bulk(c.name());
          out.bulk("pending");
          out.integer(c.pending());
          out.bulk("idle");
          out.integer(Math.max(0, now - c.seenAt()));
          out.bulk("inactive");
          out.integer(c.activeAt() < 0 ? -1 : Math.max(0, now - c.activeAt()));
        }
      }
      default -> stream(r, out, stream, groups, GroupCounters.of(stream));
    }
  }

  private static void entryOrNil(ReplyWriter out, Entry e) {
    if (e == null) {
      out.nullBulk();
    } else {
      StreamCommands.entry(out, e);
    }
  }

  /** A group's {@code entries-read} and {@code lag}, null where Redis cannot tell them. */
  private static void readAndLag(ReplyWriter out, Group g, GroupCounters counters) {
    out.bulk("entries-read");
    if (g.entriesRead() == GroupCounters.UNKNOWN) {
      out.nullBulk();
    } else {
      out.integer(g.entriesRead());
    }
    out.bulk("lag");
    Long lag = counters.lag(g);
    if (lag == null) {
      out.nullBulk();
    } else {
      out.integer(lag);
    }
  }

  /** {@code XINFO STREAM key [FULL [COUNT n]]}. */
  private static void stream(
      Request r, ReplyWriter out, StreamEntries stream, StreamGroups groups, GroupCounters c) {
    boolean full = r.argc() > 3;
    long count = 10;
    if (full) {
      if ((r.argc() != 4 && r.argc() != 6)
          || !r.is(3, "full")
          || (r.argc() == 6 && !r.is(4, "count"))) {
        throw new CommandError(
            "ERR unknown subcommand or wrong number of arguments for '"
                + r.string(1)
                + "'. Try XINFO HELP.");
      }
      if (r.argc() == 6) {
        if (!r.isLong(5)) {
          throw CommandError.NOT_INTEGER;
        }
        count = r.longValue(5) < 0 ? 10 : r.longValue(5);
      }
    }
    StreamEntries.Info info = c.info();
    out.map(full ? 9 : 10);
    out.bulk("length");
    out.integer(c.length());
    out.bulk("radix-tree-keys");
    out.integer(c.length() == 0 ? 0 : 1);
    out.bulk("radix-tree-nodes");
    out.integer(c.length() == 0 ? 1 : 2);
    out.bulk("last-generated-id");
    out.bulk(info.last().toString());
    out.bulk("max-deleted-entry-id");
    out.bulk(info.maxDeleted().toString());
    out.bulk("entries-added");
    out.integer(info.entriesAdded());
    out.bulk("recorded-first-entry-id");
    out.bulk(c.first().toString());
    if (!full) {
      out.bulk("groups");
      out.integer(groups.all(info.groups()).size());
      out.bulk("first-entry");
      entryOrNil(out, stream.first());
      out.bulk("last-entry");
      entryOrNil(out, stream.last());
      return;
    }
    long limit = count == 0 ? -1 : count;
    out.bulk("entries");
    StreamCommands.entries(out, stream.range(StreamId.ZERO, StreamId.MAX, limit, false));
    out.bulk("groups");
    List<Group> all = groups.all(info.groups());
    out.array(all.size());
    for (Group g : all) {
      out.map(7);
      out.bulk("name");
      out.bulk(g.name());
      out.bulk("last-delivered-id");
      out.bulk(g.lastDelivered().toString());
      readAndLag(out, g, c);
      out.bulk("pel-count");
      out.integer(g.pending());
      out.bulk("pending");
      List<Pending> pel = groups.pending(g, StreamId.ZERO, StreamId.MAX, limit, null);
      out.array(pel.size());
      for (Pending p : pel) {
        out.array(4);
        out.bulk(p.id().toString());
        out.bulk(p.consumer());
        out.integer(p.deliveredAt());
        out.integer(p.deliveries());
      }
      out.bulk("consumers");
      List<Consumer> consumers = groups.consumers(g);
      out.array(consumers.size());
      for (Consumer consumer : consumers) {
        out.map(5);
        out.bulk("name");
        out.bulk(consumer.name());
        out.bulk("seen-time");
        out.integer(consumer.seenAt());
        out.bulk("active-time");
        out.integer(consumer.activeAt());
        out.bulk("pel-count");
        out.integer(consumer.pending());
        out.bulk("pending");
        List<Pending> own = groups.pending(g, StreamId.ZERO, StreamId.MAX, limit, consumer.name());
        out.array(own.size());
        for (Pending p : own) {
          out.array(3);
          out.bulk(p.id().toString());
          out.integer(p.deliveredAt());
          out.integer(p.deliveries());
        }
      }
    }
  }
}
