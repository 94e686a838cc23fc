package dev.cellar.server.command;

import dev.cellar.server.collection.CollectionIds;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamGroups;
import dev.cellar.server.collection.StreamId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream to and from its {@link StreamPayload}: what {@code DUMP} reads of a stream (live
 * entries, counters, groups with their pending entries and consumers) and how {@code RESTORE}
 * builds one from a payload, through the same structures the stream commands use.
 */
final class StreamDump {
  private StreamDump() {}

  /** The payload of the stream under {@code key}, whose header is {@code h}. */
  static StreamPayload of(ElementEdits edits, byte[] key, Header h, long expireAt) {
    StreamEntries stream = new StreamEntries(edits, key, h, expireAt);
    List<StreamPayload.Entry> entries = new ArrayList<>();
    for (StreamEntries.Entry e : stream.range(StreamId.ZERO, StreamId.MAX, -1, false)) {
      entries.add(new StreamPayload.Entry(e.id(), e.fields()));
    }
    StreamEntries.Info info = stream.info();
    StreamGroups groups = new StreamGroups(edits, stream.id());
    List<StreamPayload.Group> out = new ArrayList<>();
    for (StreamGroups.Group g : groups.all(info.groups())) {
      List<StreamPayload.Pending> pending = new ArrayList<>();
      for (StreamGroups.Pending p : groups.pending(g, StreamId.ZERO, StreamId.MAX, -1, null)) {
        pending.add(
            new StreamPayload.Pending(
                p.id(), p.deliveredAt(), p.deliveries(), bytes(p.consumer())));
      }
      List<StreamPayload.Consumer> consumers = new ArrayList<>();
      for (StreamGroups.Consumer c : groups.consumers(g)) {
        consumers.add(new StreamPayload.Consumer(bytes(c.name()), c.seenAt(), c.activeAt()));
      }
      out.add(
          new StreamPayload.Group(
              bytes(g.name()), g.lastDelivered(), g.entriesRead(), pending, consumers));
    }
    return new StreamPayload(
        entries,
        info.last(),
        entries.isEmpty() ? StreamId.ZERO : entries.getFirst().id(),
        info.maxDeleted(),
        info.entriesAdded(),
        out);
  }

  /** Writes {@code p} as a new stream under {@code key} into {@code edits} (not committed). */
  static void restore(
      ElementEdits edits, CollectionIds ids, byte[] key, StreamPayload p, long expireAt) {
    StreamEntries stream = new StreamEntries(edits, key, null, expireAt);
    stream.create(ids);
    for (StreamPayload.Entry e : p.entries()) {
      stream.append(e.id(), e.fields());
    }
    stream.setInfo(
        new StreamEntries.Info(p.last(), p.entriesAdded(), p.maxDeleted(), p.groups().size()));
    StreamGroups groups = new StreamGroups(edits, stream.id());
    long number = 0;
    for (StreamPayload.Group pg : p.groups()) {
      StreamGroups.Group[] g = {
        groups.create(text(pg.name()), ++number, pg.last(), pg.entriesRead())
      };
      for (StreamPayload.Consumer pc : pg.consumers()) {
        StreamGroups.Consumer c = groups.consumerOrCreate(g, text(pc.name()), pc.seenAt());
        groups.save(
            g[0],
            new StreamGroups.Consumer(
                c.name(), pc.seenAt(), pc.activeAt(), c.pending(), c.number()));
      }
      for (StreamPayload.Pending pp : pg.pending()) {
        String consumer = text(pp.consumer());
        g[0] = groups.deliver(g[0], pp.id(), consumer, pp.deliveredAt());
        StreamGroups.Pending delivered = groups.find(g[0], pp.id());
        groups.update(
            g[0],
            new StreamGroups.Pending(
                delivered.index(), pp.id(), consumer, pp.deliveredAt(), pp.deliveries(), false));
      }
    }
    stream.finishWithExpiry(expireAt);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
