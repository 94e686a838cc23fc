package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.STREAM_CONSUMER;
import static dev.cellar.server.collection.CollectionDescriptor.STREAM_CONSUMER_LIST;
import static dev.cellar.server.collection.CollectionDescriptor.STREAM_GROUP;
import static dev.cellar.server.collection.CollectionDescriptor.STREAM_GROUP_LIST;
import static dev.cellar.server.collection.CollectionDescriptor.STREAM_PENDING;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream's consumer groups, in element records beside its entries ({@link StreamEntries}).
 *
 * <h2>Layout</h2>
 *
 * A group is a record under its name ({@code id 'G' name}): its number, last delivered id, entries
 * read, and its pending entries list (PEL) as an array of indexes {@code [pelHead, pelNext)}. The
 * PEL's records ({@code id 'P' group index}) hold an entry id, its consumer, the time of its last
 * delivery and how many deliveries it had. Entries enter the PEL when {@code XREADGROUP >} delivers
 * them, and those ids only grow, so the array is in id order: an id is found by binary search.
 * {@code XACK} leaves a tombstone; tombstones at the front are dropped. A consumer is a record
 * ({@code id 'C' group name}) with its seen and active times and pending count. Groups and
 * consumers are also listed by number ({@code 'g'}, {@code 'c'}) for {@code XINFO} and {@code
 * XPENDING}; a deleted one leaves a hole in its list.
 */
public final class StreamGroups {
  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** A group's state. */
  public record Group(
      String name,
      long number,
      StreamId lastDelivered,
      long entriesRead,
      long pelHead,
      long pelNext,
      long pending,
      long consumers) {
    public Group with(StreamId last, long read) {
      return new Group(name, number, last, read, pelHead, pelNext, pending, consumers);
    }
  }

  /** A pending entry: delivered to a consumer, not acknowledged. */
  public record Pending(
      long index, StreamId id, String consumer, long deliveredAt, long deliveries, boolean acked) {}

  /** A consumer's state. */
  public record Consumer(String name, long seenAt, long activeAt, long pending, long number) {}

  private final ElementEdits edits;
  private final long streamId;

  public StreamGroups(ElementEdits edits, long streamId) {
    this.edits = edits;
    this.streamId = streamId;
  }

  // ------------------------------------------------------------------ keys

  private byte[] groupKey(String name) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return CollectionDescriptor.elementKey(streamId, STREAM_GROUP, n, 0, n.length);
  }

  private byte[] groupListKey(long number) {
    return CollectionDescriptor.elementKey(streamId, STREAM_GROUP_LIST, number);
  }

  private byte[] pendingKey(long group, long index) {
    byte[] suffix = new byte[16];
    MemorySegment s = MemorySegment.ofArray(suffix);
    s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, group);
    s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, index);
    return CollectionDescriptor.elementKey(streamId, STREAM_PENDING, suffix, 0, 16);
  }

  private byte[] consumerKey(long group, String name) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] suffix = new byte[8 + n.length];
    MemorySegment.ofArray(suffix)
        .set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, group);
    System.arraycopy(n, 0, suffix, 8, n.length);
    return CollectionDescriptor.elementKey(streamId, STREAM_CONSUMER, suffix, 0, suffix.length);
  }

  private byte[] consumerListKey(long group, long number) {
    byte[] suffix = new byte[16];
    MemorySegment s = MemorySegment.ofArray(suffix);
    s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, group);
    s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, number);
    return CollectionDescriptor.elementKey(streamId, STREAM_CONSUMER_LIST, suffix, 0, 16);
  }

  // ------------------------------------------------------------------ groups

  public Group group(String name) {
    byte[] v = edits.get(groupKey(name));
    if (v == null) {
      return null;
    }
    MemorySegment s = MemorySegment.ofArray(v);
    return new Group(
        name,
        s.get(LE, 0),
        new StreamId(s.get(LE, 8), s.get(LE, 16)),
        s.get(LE, 24),
        s.get(LE, 32),
        s.get(LE, 40),
        s.get(LE, 48),
        s.get(LE, 56));
  }

  public void save(Group g) {
    byte[] v = new byte[64];
    MemorySegment s = MemorySegment.ofArray(v);
    s.set(LE, 0, g.number());
    s.set(LE, 8, g.lastDelivered().ms());
    s.set(LE, 16, g.lastDelivered().seq());
    s.set(LE, 24, g.entriesRead());
    s.set(LE, 32, g.pelHead());
    s.set(LE, 40, g.pelNext());
    s.set(LE, 48, g.pending());
    s.set(LE, 56, g.consumers());
    edits.put(groupKey(g.name()), v);
  }

  /** Creates a group, numbered {@code number}; the caller checked it does not exist. */
  public Group create(String name, long number, StreamId last, long entriesRead) {
    Group g = new Group(name, number, last, entriesRead, 0, 0, 0, 0);
    save(g);
    edits.put(groupListKey(number), name.getBytes(StandardCharsets.UTF_8));
    return g;
  }

  /** Deletes a group with its consumers and pending entries. */
  public void destroy(Group g) {
    for (Pending p : pending(g, StreamId.ZERO, StreamId.MAX, -1, null)) {
      edits.delete(pendingKey(g.number(), p.index()));
    }
    for (Consumer c : consumers(g)) {
      edits.delete(consumerKey(g.number(), c.name()));
      edits.delete(consumerListKey(g.number(), c.number()));
    }
    edits.delete(groupKey(g.name()));
    edits.delete(groupListKey(g.number()));
  }

  /**
   * Orders names as Redis's radix trees of groups and consumers do, so that XINFO lists them as
   * Redis does: by their bytes, unsigned.
   */
  private static int byName(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  /** The groups, in name order (as Redis lists them), of the {@code count} numbers handed out. */
  public List<Group> all(long count) {
    List<Group> out = new ArrayList<>();
    for (long n = 1; n <= count; n++) {
      byte[] name = edits.get(groupListKey(n));
      if (name != null) {
        Group g = group(new String(name, StandardCharsets.UTF_8));
        if (g != null) {
          out.add(g);
        }
      }
    }
    out.sort((a, b) -> byName(a.name(), b.name()));
    return out;
  }

  // ------------------------------------------------------------------ consumers

  public Consumer consumer(Group g, String name) {
    byte[] v = edits.get(consumerKey(g.number(), name));
    if (v == null) {
      return null;
    }
    MemorySegment s = MemorySegment.ofArray(v);
    return new Consumer(name, s.get(LE, 0), s.get(LE, 8), s.get(LE, 16), s.get(LE, 24));
  }

  public void save(Group g, Consumer c) {
    byte[] v = new byte[32];
    MemorySegment s = MemorySegment.ofArray(v);
    s.set(LE, 0, c.seenAt());
    s.set(LE, 8, c.activeAt());
    s.set(LE, 16, c.pending());
    s.set(LE, 24, c.number());
    edits.put(consumerKey(g.number(), c.name()), v);
  }

  /**
   * The consumer, created (seen now, never active) if it does not exist; the group returned in
   * {@code group[0]} counts it.
   */
  public Consumer consumerOrCreate(Group[] group, String name, long now) {
    Consumer c = consumer(group[0], name);
    if (c != null) {
      return c;
    }
    Group g = group[0];
    long number = g.consumers() + 1;
    g =
        new Group(
            g.name(),
            g.number(),
            g.lastDelivered(),
            g.entriesRead(),
            g.pelHead(),
            g.pelNext(),
            g.pending(),
            number);
    group[0] = g;
    save(g);
    c = new Consumer(name, now, -1, 0, number);
    save(g, c);
    edits.put(consumerListKey(g.number(), number), name.getBytes(StandardCharsets.UTF_8));
    return c;
  }

  /** Deletes a consumer (its pending entries go with it); returns its pending count. */
  public long deleteConsumer(Group[] group, Consumer c) {
    long removed = 0;
    Group g = group[0];
    for (Pending p : pending(g, StreamId.ZERO, StreamId.MAX, -1, c.name())) {
      g = ack(g, p);
      removed++;
    }
    edits.delete(consumerKey(g.number(), c.name()));
    edits.delete(consumerListKey(g.number(), c.number()));
    group[0] = g;
    return removed;
  }

  /** The group's consumers, in name order, as Redis lists them. */
  public List<Consumer> consumers(Group g) {
    List<Consumer> out = new ArrayList<>();
    for (long n = 1; n <= g.consumers(); n++) {
      byte[] name = edits.get(consumerListKey(g.number(), n));
      if (name != null) {
        Consumer c = consumer(g, new String(name, StandardCharsets.UTF_8));
        if (c != null) {
          out.add(c);
        }
      }
    }
    out.sort((a, b) -> byName(a.name(), b.name()));
    return out;
  }

  // ------------------------------------------------------------------ the PEL

  private Pending readPending(long group, long index) {
    byte[] v = edits.get(pendingKey(group, index));
    if (v == null) {
      throw new IllegalStateException("stream " + streamId + " group " + group + " lost " + index);
    }
    MemorySegment s = MemorySegment.ofArray(v);
    return new Pending(
        index,
        new StreamId(s.get(LE, 1), s.get(LE, 9)),
        new String(v, 33, v.length - 33, StandardCharsets.UTF_8),
        s.get(LE, 17),
        s.get(LE, 25),
        v[0] == 1);
  }

  private void writePending(long group, Pending p) {
    byte[] name = p.consumer().getBytes(StandardCharsets.UTF_8);
    byte[] v = new byte[33 + name.length];
    MemorySegment s = MemorySegment.ofArray(v);
    v[0] = (byte) (p.acked() ? 1 : 0);
    s.set(LE, 1, p.id().ms());
    s.set(LE, 9, p.id().seq());
    s.set(LE, 17, p.deliveredAt());
    s.set(LE, 25, p.deliveries());
    System.arraycopy(name, 0, v, 33, name.length);
    edits.put(pendingKey(group, p.index()), v);
  }

  /** The first PEL index whose id is at least {@code id}. */
  private long lowerBound(Group g, StreamId id) {
    long lo = g.pelHead();
    long hi = g.pelNext();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (readPending(g.number(), mid).id().compareTo(id) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The pending entry of id {@code id}, or null. */
  public Pending find(Group g, StreamId id) {
    long i = lowerBound(g, id);
    if (i >= g.pelNext()) {
      return null;
    }
    Pending p = readPending(g.number(), i);
    return !p.acked() && p.id().equals(id) ? p : null;
  }

  /**
   * Pending entries with ids from {@code from} to {@code to}, at most {@code count} (negative:
   * all), of {@code consumer} only if it is not null.
   */
  public List<Pending> pending(Group g, StreamId from, StreamId to, long count, String consumer) {
    List<Pending> out = new ArrayList<>();
    for (long i = lowerBound(g, from); i < g.pelNext() && (count < 0 || out.size() < count); i++) {
      Pending p = readPending(g.number(), i);
      if (p.id().compareTo(to) > 0) {
        break;
      }
      if (!p.acked() && (consumer == null || consumer.equals(p.consumer()))) {
        out.add(p);
      }
    }
    return out;
  }

  /** Adds a delivered entry to the PEL (its id above every pending one); returns the group. */
  public Group deliver(Group g, StreamId id, String consumer, long now) {
    long index = g.pelNext();
    writePending(g.number(), new Pending(index, id, consumer, now, 1, false));
    Group updated =
        new Group(
            g.name(),
            g.number(),
            g.lastDelivered(),
            g.entriesRead(),
            g.pelHead(),
            index + 1,
            g.pending() + 1,
            g.consumers());
    save(updated);
    adjustConsumer(updated, consumer, 1);
    return updated;
  }

  /** Updates a pending entry in place (claimed, delivered again). */
  public void update(Group g, Pending p) {
    writePending(g.number(), p);
  }

  /** Moves a pending entry to another consumer, as XCLAIM does. */
  public void reassign(Group g, Pending p, String consumer, long deliveredAt, long deliveries) {
    if (!p.consumer().equals(consumer)) {
      adjustConsumer(g, p.consumer(), -1);
      adjustConsumer(g, consumer, 1);
    }
    writePending(
        g.number(), new Pending(p.index(), p.id(), consumer, deliveredAt, deliveries, false));
  }

  private void adjustConsumer(Group g, String name, long delta) {
    Consumer c = consumer(g, name);
    if (c != null) {
      save(g, new Consumer(c.name(), c.seenAt(), c.activeAt(), c.pending() + delta, c.number()));
    }
  }

  /** Acknowledges a pending entry; returns the group. */
  public Group ack(Group g, Pending p) {
    writePending(
        g.number(),
        new Pending(p.index(), p.id(), p.consumer(), p.deliveredAt(), p.deliveries(), true));
    adjustConsumer(g, p.consumer(), -1);
    long head = g.pelHead();
    while (head < g.pelNext() && readPending(g.number(), head).acked()) {
      edits.delete(pendingKey(g.number(), head));
      head++;
    }
    Group updated =
        new Group(
            g.name(),
            g.number(),
            g.lastDelivered(),
            g.entriesRead(),
            head,
            g.pelNext(),
            g.pending() - 1,
            g.consumers());
    save(updated);
    return updated;
  }
}
