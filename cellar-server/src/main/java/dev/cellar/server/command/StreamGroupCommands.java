package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.GroupCounters;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamEntries.Entry;
import dev.cellar.server.collection.StreamGroups;
import dev.cellar.server.collection.StreamGroups.Consumer;
import dev.cellar.server.collection.StreamGroups.Group;
import dev.cellar.server.collection.StreamGroups.Pending;
import dev.cellar.server.collection.StreamId;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams' consumer groups: {@code XGROUP}, {@code XREADGROUP} (blocking too), {@code XACK}, {@code
 * XPENDING}, {@code XCLAIM}, {@code XAUTOCLAIM} and {@code XINFO}, over {@link StreamGroups}.
 */
final class StreamGroupCommands {
  private StreamGroupCommands() {}

  static void register(CommandTable t) {
    t.add(
            "xgroup",
            -2,
            "write",
            2,
            2,
            1,
            "stream",
            "A container for consumer groups commands.",
            StreamGroupAdmin::xgroup)
        .add(
            "xreadgroup",
            -7,
            "write blocking movablekeys",
            0,
            0,
            0,
            "stream",
            "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.",
            StreamGroupCommands::xreadgroup)
        .add(
            "xack",
            -4,
            "write fast",
            1,
            1,
            1,
            "stream",
            "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
            StreamGroupCommands::xack)
        .add(
            "xpending",
            -3,
            "readonly",
            1,
            1,
            1,
            "stream",
            "Returns the information and entries from a stream consumer group's pending entries list.",
            StreamGroupCommands::xpending)
        .add(
            "xclaim",
            -6,
            "write fast",
            1,
            1,
            1,
            "stream",
            "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.",
            StreamGroupCommands::xclaim)
        .add(
            "xautoclaim",
            -6,
            "write fast",
            1,
            1,
            1,
            "stream",
            "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.",
            StreamGroupCommands::xautoclaim)
        .add(
            "xinfo",
            -2,
            "readonly",
            2,
            2,
            1,
            "stream",
            "A container for stream introspection commands.",
            StreamInfo::xinfo);
  }

  static CommandError noGroup(String key, String group, String command) {
    return new CommandError(
        "NOGROUP No such key '"
            + key
            + "' or consumer group '"
            + group
            + "'"
            + (command == null ? "" : " in " + command + " with GROUP option"));
  }

  /** The groups of {@code stream}, or null if the stream does not exist. */
  private static StreamGroups groupsOf(ElementEdits edits, StreamEntries stream) {
    return stream.exists() ? new StreamGroups(edits, stream.id()) : null;
  }

  /** The group argument 2 names, or null if it (or its stream) does not exist. */
  private static Group groupOf(StreamGroups groups, Request r) {
    return groups == null ? null : groups.group(r.string(2));
  }

  static StreamId id(String text) {
    StreamId id = StreamCommands.parseId(text, 0);
    if (id == null) {
      throw StreamCommands.INVALID_ID;
    }
    return id;
  }

  // ------------------------------------------------------------------ XREADGROUP

  static void xreadgroup(Session s, Request r, ReplyWriter out) {
    if (!r.is(1, "group")) {
      throw CommandError.SYNTAX;
    }
    String group = r.string(2);
    String consumer = r.string(3);
    StreamCommands.ReadOptions options = StreamCommands.readOptions(s, r, 4, true);
    long count = options.count();
    long block = options.block();
    boolean noAck = options.noAck();
    int i = options.streams();
    int rest = r.argc() - i - 1;
    if (i >= r.argc() || rest <= 0 || rest % 2 != 0) {
      throw new CommandError(
          "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be"
              + " specified.");
    }
    int n = rest / 2;
    List<byte[]> keys = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      keys.add(r.bytes(i + 1 + k));
      String text = r.string(i + 1 + n + k);
      if (!text.equals(">")) {
        id(text);
      }
      ids.add(text);
    }
    boolean allNew = ids.stream().allMatch(">"::equals);
    long wanted = count;
    boolean ack = !noAck;
    ReadGroup read = new ReadGroup(keys, ids, group, consumer, wanted, ack);
    boolean waits = block >= 0 && allNew;
    BlockingPops.popFirst(
        s,
        out,
        keys,
        waits ? block : -1,
        // All the streams are read together, on the first key's turn. A group reader is told when
        // its stream becomes another type, as Redis tells it (it unblocks on any change of key).
        (x, o, key) -> key == keys.getFirst() && read.run(x, o, waits),
        true);
  }

  /** One XREADGROUP's reads of its streams, run under their locks. */
  private record ReadGroup(
      List<byte[]> keys, List<String> ids, String group, String consumer, long count, boolean ack) {
    /** Answers if some stream has entries (or, unless {@code waitForNew}, always); false else. */
    boolean run(Session s, ReplyWriter out, boolean waitForNew) {
      ServerContext server = s.server();
      ElementEdits edits = server.edits();
      List<byte[]> answered = new ArrayList<>();
      List<List<Entry>> found = new ArrayList<>();
      List<byte[]> madeConsumerIn = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (int k = 0; k < keys.size(); k++) {
        StreamEntries stream = StreamCommands.open(edits, keys.get(k));
        StreamGroups groups = stream.exists() ? new StreamGroups(edits, stream.id()) : null;
        Group g = groups == null ? null : groups.group(group);
        if (g == null) {
          throw noGroup(
              new String(keys.get(k), java.nio.charset.StandardCharsets.UTF_8),
              group,
              "XREADGROUP");
        }
        Group[] holder = {g};
        Consumer c = groups.consumerOrCreate(holder, consumer, now);
        if (holder[0].consumers() > g.consumers()) {
          madeConsumerIn.add(keys.get(k));
        }
        g = holder[0];
        List<Entry> entries;
        if (ids.get(k).equals(">")) {
          entries =
              g.lastDelivered().equals(StreamId.MAX)
                  ? List.of()
                  : stream.range(g.lastDelivered().next(), StreamId.MAX, count, false);
          for (Entry e : entries) {
            if (ack) {
              g = groups.deliver(g, e.id(), consumer, now);
            }
          }
          if (!entries.isEmpty()) {
            GroupCounters counters = GroupCounters.of(stream);
            long read = g.entriesRead();
            for (Entry e : entries) {
              read = counters.afterDelivery(read, e.id());
            }
            g = g.with(entries.getLast().id(), read);
            groups.save(g);
            c = groups.consumer(g, consumer);
            groups.save(g, new Consumer(c.name(), now, now, c.pending(), c.number()));
          } else {
            groups.save(g, new Consumer(c.name(), now, c.activeAt(), c.pending(), c.number()));
          }
        } else {
          entries = new ArrayList<>();
          for (Pending p :
              groups.pending(
                  g, StreamCommands.parseId(ids.get(k), 0).next(), StreamId.MAX, count, consumer)) {
            List<Entry> one = stream.range(p.id(), p.id(), 1, false);
            entries.add(one.isEmpty() ? new Entry(p.id(), null, true) : one.getFirst());
            // Read again from the history: delivered once more, as Redis counts it.
            groups.update(
                g, new Pending(p.index(), p.id(), p.consumer(), now, p.deliveries() + 1, false));
          }
          groups.save(g, new Consumer(c.name(), now, c.activeAt(), c.pending(), c.number()));
        }
        answered.add(keys.get(k));
        found.add(entries);
      }
      boolean any = found.stream().anyMatch(l -> !l.isEmpty());
      edits.commit(); // the consumer is seen (and made) even when it then waits, as in Redis
      for (byte[] key : madeConsumerIn) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-createconsumer", key);
      }
      if (waitForNew && !any) {
        return false;
      }
      if (!any && ids.stream().allMatch(">"::equals)) {
        out.nullArray();
        return true;
      }
      StreamCommands.perStream(out, answered, found);
      return true;
    }
  }

  // ------------------------------------------------------------------ XACK, XPENDING

  static void xack(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = StreamCommands.open(edits, r.bytes(1));
      StreamGroups groups = groupsOf(edits, stream);
      Group g = groupOf(groups, r);
      if (g == null) {
        out.integer(0); // before the ids are read, as Redis does
        return;
      }
      List<StreamId> ids = new ArrayList<>();
      for (int i = 3; i < r.argc(); i++) {
        ids.add(id(r.string(i)));
      }
      long acked = 0;
      for (StreamId id : ids) {
        Pending p = groups.find(g, id);
        if (p != null) {
          g = groups.ack(g, p);
          acked++;
        }
      }
      edits.commit();
      out.integer(acked);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void xpending(Session s, Request r, ReplyWriter out) {
    ElementEdits edits = s.server().edits();
    StreamEntries stream = StreamCommands.open(edits, r.bytes(1));
    StreamGroups groups = groupsOf(edits, stream);
    Group g = groupOf(groups, r);
    if (g == null) {
      throw noGroup(r.string(1), r.string(2), null);
    }
    if (r.argc() == 3) {
      List<Pending> all = groups.pending(g, StreamId.ZERO, StreamId.MAX, -1, null);
      if (all.isEmpty()) {
        out.array(4);
        out.integer(0);
        out.nullBulk();
        out.nullBulk();
        out.nullArray();
        return;
      }
      java.util.Map<String, Long> byConsumer = new java.util.TreeMap<>();
      for (Pending p : all) {
        byConsumer.merge(p.consumer(), 1L, Long::sum);
      }
      out.array(4);
      out.integer(all.size());
      out.bulk(all.getFirst().id().toString());
      out.bulk(all.getLast().id().toString());
      out.array(byConsumer.size());
      byConsumer.forEach(
          (name, n) -> {
            out.array(2);
            out.bulk(name);
            out.bulk(Long.toString(n));
          });
      return;
    }
    int i = 3;
    long minIdle = 0;
    if (r.is(i, "idle")) {
      if (i + 1 >= r.argc() || !r.isLong(i + 1)) {
        throw CommandError.NOT_INTEGER;
      }
      minIdle = r.longValue(i + 1);
      i += 2;
    }
    if (r.argc() - i < 3 || r.argc() - i > 4) {
      throw CommandError.SYNTAX;
    }
    StreamId from = StreamCommands.rangeEnd(r.string(i), true);
    StreamId to = StreamCommands.rangeEnd(r.string(i + 1), false);
    if (!r.isLong(i + 2)) {
      throw CommandError.NOT_INTEGER;
    }
    long count = Math.max(0, r.longValue(i + 2));
    String consumer = r.argc() - i == 4 ? r.string(i + 3) : null;
    long now = System.currentTimeMillis();
    List<Pending> found = new ArrayList<>();
    for (Pending p : groups.pending(g, from, to, -1, consumer)) {
      if (found.size() >= count) {
        break;
      }
      if (now - p.deliveredAt() >= minIdle) {
        found.add(p);
      }
    }
    out.array(found.size());
    for (Pending p : found) {
      out.array(4);
      out.bulk(p.id().toString());
      out.bulk(p.consumer());
      out.integer(Math.max(0, now - p.deliveredAt()));
      out.integer(p.deliveries());
    }
  }

  // ------------------------------------------------------------------ XCLAIM, XAUTOCLAIM

  static void xclaim(Session s, Request r, ReplyWriter out) {
    // Redis looks at the key's type before it reads the arguments.
    StreamCommands.open(s.server().edits(), r.bytes(1));
    if (!r.isLong(4)) {
      throw new CommandError("ERR Invalid min-idle-time argument for XCLAIM");
    }
    long minIdle = Math.max(0, r.longValue(4));
    List<StreamId> ids = new ArrayList<>();
    int i = 5;
    for (; i < r.argc(); i++) {
      StreamId id = StreamCommands.parseId(r.string(i), 0);
      if (id == null) {
        break;
      }
      ids.add(id);
    }
    // Redis reports a missing group after the ids and before the options.
    ElementEdits probe = s.server().edits();
    if (groupOf(groupsOf(probe, StreamCommands.open(probe, r.bytes(1))), r) == null) {
      throw noGroup(r.string(1), r.string(2), null);
    }
    long now = System.currentTimeMillis();
    long deliveredAt = now;
    long retryCount = -1;
    boolean justId = false;
    for (; i < r.argc(); i++) {
      if (r.is(i, "force")) {
        continue;
      } else if (r.is(i, "justid")) {
        justId = true;
      } else if (r.is(i, "idle") && i + 1 < r.argc() && r.isLong(i + 1)) {
        deliveredAt = now - r.longValue(++i);
      } else if (r.is(i, "time") && i + 1 < r.argc() && r.isLong(i + 1)) {
        deliveredAt = r.longValue(++i);
      } else if (r.is(i, "retrycount") && i + 1 < r.argc() && r.isLong(i + 1)) {
        retryCount = r.longValue(++i);
      } else if (r.is(i, "lastid") && i + 1 < r.argc()) {
        id(r.string(++i));
      } else {
        throw new CommandError("ERR Unrecognized XCLAIM option '" + r.string(i) + "'");
      }
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = StreamCommands.open(edits, r.bytes(1));
      StreamGroups groups = groupsOf(edits, stream);
      Group g = groupOf(groups, r);
      if (g == null) {
        throw noGroup(r.string(1), r.string(2), null);
      }
      Group[] holder = {g};
      groups.consumerOrCreate(holder, r.string(3), now);
      boolean madeConsumer = holder[0].consumers() > g.consumers();
      g = holder[0];
      List<Entry> claimed = new ArrayList<>();
      for (StreamId id : ids) {
        Pending p = groups.find(g, id);
        List<Entry> entry = stream.range(id, id, 1, false);
        // FORCE is taken and does nothing: an id not pending is not added (the PEL stays in id
        // order, as its binary search needs).
        if (p == null || now - p.deliveredAt() < minIdle) {
          continue;
        }
        if (entry.isEmpty()) {
          g = groups.ack(g, p); // deleted from the stream: gone from the PEL too
          continue;
        }
        long deliveries = retryCount >= 0 ? retryCount : p.deliveries() + (justId ? 0 : 1);
        groups.reassign(g, p, r.string(3), deliveredAt, deliveries);
        claimed.add(entry.getFirst());
      }
      edits.commit();
      if (madeConsumer) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-createconsumer", r, 1);
      }
      if (justId) {
        out.array(claimed.size());
        claimed.forEach(e -> out.bulk(e.id().toString()));
      } else {
        StreamCommands.entries(out, claimed);
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void xautoclaim(Session s, Request r, ReplyWriter out) {
    // Redis looks at the key's type before it reads the arguments.
    StreamCommands.open(s.server().edits(), r.bytes(1));
    if (!r.isLong(4)) {
      throw new CommandError("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    }
    long minIdle = Math.max(0, r.longValue(4));
    StreamId start = StreamCommands.rangeEnd(r.string(5), true);
    long count = 100;
    boolean justId = false;
    for (int i = 6; i < r.argc(); i++) {
      if (r.is(i, "count") && i + 1 < r.argc()) {
        // Redis's bound: LONG_MAX over the larger of a stream id's 16 bytes and its 10 attempts
        if (!r.isLong(i + 1)
            || r.longValue(i + 1) < 1
            || r.longValue(i + 1) > Long.MAX_VALUE / 16) {
          throw new CommandError("ERR COUNT must be > 0");
        }
        count = r.longValue(++i);
      } else if (r.is(i, "justid")) {
        justId = true;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = StreamCommands.open(edits, r.bytes(1));
      StreamGroups groups = groupsOf(edits, stream);
      Group g = groupOf(groups, r);
      if (g == null) {
        throw noGroup(r.string(1), r.string(2), null);
      }
      long now = System.currentTimeMillis();
      Group[] holder = {g};
      groups.consumerOrCreate(holder, r.string(3), now);
      boolean madeConsumer = holder[0].consumers() > g.consumers();
      g = holder[0];
      List<Entry> claimed = new ArrayList<>();
      List<StreamId> deleted = new ArrayList<>();
      StreamId next = StreamId.ZERO;
      long examined = 0;
      for (Pending p : groups.pending(g, start, StreamId.MAX, -1, null)) {
        if (examined++ >= count * 10 || claimed.size() + deleted.size() >= count) {
          next = p.id();
          break;
        }
        if (now - p.deliveredAt() < minIdle) {
          continue;
        }
        List<Entry> entry = stream.range(p.id(), p.id(), 1, false);
        if (entry.isEmpty()) {
          g = groups.ack(g, p);
          deleted.add(p.id());
          continue;
        }
        groups.reassign(g, p, r.string(3), now, p.deliveries() + (justId ? 0 : 1));
        claimed.add(entry.getFirst());
      }
      edits.commit();
      if (madeConsumer) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-createconsumer", r, 1);
      }
      out.array(3);
      out.bulk(next.toString());
      if (justId) {
        out.array(claimed.size());
        claimed.forEach(e -> out.bulk(e.id().toString()));
      } else {
        StreamCommands.entries(out, claimed);
      }
      out.array(deleted.size());
      deleted.forEach(id -> out.bulk(id.toString()));
    } finally {
      server.locks().unlock(stripe);
    }
  }
}
