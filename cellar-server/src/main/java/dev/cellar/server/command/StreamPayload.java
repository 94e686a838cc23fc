package dev.cellar.server.command;

import dev.cellar.server.collection.GroupCounters;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamId;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A stream in a {@code DUMP} payload (docs/format/dump.md, "Streams"), as Redis 7.0 writes it (RDB
 * type 19, {@code STREAM_LISTPACKS_2}), and read from Redis 5 to 7.2's types 15, 19 and 21.
 *
 * <p>The entries travel as Redis keeps them: nodes of up to 100 entries or about 4 KiB (Redis's
 * {@code stream-node-max-entries} and {@code -max-bytes} defaults), each a listpack under its first
 * entry's id, whose entries are stored relative to a "master entry" holding that id's field names.
 * Then the stream's counters and its consumer groups: each with its pending entries (id, delivery
 * time, deliveries) and its consumers, each consumer naming the pending ids it owns.
 *
 * <p>Reading checks what Cellar's structures rely on, where Redis without deep sanitisation would
 * not: entries in increasing id order up to the last id, every pending entry owned by exactly one
 * consumer, no name twice.
 */
record StreamPayload(
    List<Entry> entries,
    StreamId last,
    StreamId first,
    StreamId maxDeleted,
    long entriesAdded,
    List<Group> groups) {

  /** An entry: its id and its fields and values, alternating. */
  record Entry(StreamId id, List<byte[]> fields) {}

  /** A consumer group; {@code entriesRead} -1 when not known. */
  record Group(
      byte[] name,
      StreamId last,
      long entriesRead,
      List<Pending> pending,
      List<Consumer> consumers) {}

  /** A delivered, unacknowledged entry, and the consumer holding it. */
  record Pending(StreamId id, long deliveredAt, long deliveries, byte[] consumer) {}

  /** A consumer; {@code activeAt} -1 if it never read. */
  record Consumer(byte[] name, long seenAt, long activeAt) {}

  private static final int NODE_MAX_ENTRIES = 100;
  private static final int NODE_MAX_BYTES = 4096;
  private static final int FLAG_DELETED = 1;
  private static final int FLAG_SAME_FIELDS = 2;

  /** The whole payload. */
  byte[] write() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(DumpPayload.STREAM_LISTPACKS_2);
    List<byte[]> nodes = new ArrayList<>();
    for (int i = 0; i < entries.size(); ) {
      int start = i;
      Entry master = entries.get(start);
      List<byte[]> masterFields = names(master.fields());
      int end = start;
      int bytes = 0;
      while (end < entries.size() && end - start < NODE_MAX_ENTRIES && bytes < NODE_MAX_BYTES) {
        bytes += size(entries.get(end));
        end++;
      }
      nodes.add(key(master.id()));
      nodes.add(node(master.id(), masterFields, entries.subList(start, end)));
      i = end;
    }
    DumpPayload.writeLength(out, nodes.size() / 2);
    for (byte[] part : nodes) {
      DumpPayload.writeString(out, part);
    }
    DumpPayload.writeLength(out, entries.size());
    id(out, last);
    id(out, first);
    id(out, maxDeleted);
    DumpPayload.writeLength(out, entriesAdded);
    DumpPayload.writeLength(out, groups.size());
    for (Group g : groups) {
      DumpPayload.writeString(out, g.name());
      id(out, g.last());
      DumpPayload.writeLength(out, g.entriesRead());
      DumpPayload.writeLength(out, g.pending().size());
      for (Pending p : g.pending()) {
        out.write(key(p.id()), 0, 16);
        millis(out, p.deliveredAt());
        DumpPayload.writeLength(out, p.deliveries());
      }
      Map<String, List<Pending>> byConsumer = new HashMap<>();
      for (Pending p : g.pending()) {
        byConsumer.computeIfAbsent(latin1(p.consumer()), c -> new ArrayList<>()).add(p);
      }
      DumpPayload.writeLength(out, g.consumers().size());
      for (Consumer c : g.consumers()) {
        DumpPayload.writeString(out, c.name());
        millis(out, c.seenAt());
        List<Pending> owned = byConsumer.getOrDefault(latin1(c.name()), List.of());
        DumpPayload.writeLength(out, owned.size());
        for (Pending p : owned) {
          out.write(key(p.id()), 0, 16);
        }
      }
    }
    return DumpPayload.seal(out);
  }

  /** A name as a map key that compares its bytes, whatever they are. */
  private static String latin1(byte[] name) {
    return new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  /**
   * A group's or consumer's name as Cellar keeps it (text, UTF-8), so that two names Cellar would
   * take for one are refused as duplicates rather than merged.
   */
  private static String asCellarName(byte[] name) {
    return new String(name, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A rough size of an entry in a node, to cut nodes near Redis's byte limit. */
  private static int size(Entry e) {
    int n = 8;
    for (byte[] f : e.fields()) {
      n += f.length + 2;
    }
    return n;
  }

  private static List<byte[]> names(List<byte[]> fields) {
    List<byte[]> names = new ArrayList<>();
    for (int i = 0; i < fields.size(); i += 2) {
      names.add(fields.get(i));
    }
    return names;
  }

  private static boolean sameNames(List<byte[]> fields, List<byte[]> master) {
    if (fields.size() != 2 * master.size()) {
      return false;
    }
    for (int i = 0; i < master.size(); i++) {
      if (!Arrays.equals(fields.get(2 * i), master.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** A node's listpack: the master entry, then each entry relative to it. */
  private static byte[] node(StreamId master, List<byte[]> masterFields, List<Entry> entries) {
    Listpack.Writer lp = new Listpack.Writer();
    lp.integer(entries.size()).integer(0).integer(masterFields.size());
    for (byte[] f : masterFields) {
      lp.string(f);
    }
    lp.integer(0);
    for (Entry e : entries) {
      boolean same = sameNames(e.fields(), masterFields);
      int fields = e.fields().size() / 2;
      lp.integer(same ? FLAG_SAME_FIELDS : 0)
          .integer(e.id().ms() - master.ms())
          .integer(e.id().seq() - master.seq());
      if (!same) {
        lp.integer(fields);
      }
      for (int i = 0; i < e.fields().size(); i++) {
        if (!same || i % 2 == 1) {
          lp.string(e.fields().get(i));
        }
      }
      lp.integer(same ? 3 + fields : 3 + 2 * fields + 1);
    }
    return lp.finish();
  }

  /** A stream id as Redis keys its nodes and PELs: ms then seq, each 64-bit big-endian. */
  private static byte[] key(StreamId id) {
    byte[] k = new byte[16];
    for (int i = 0; i < 8; i++) {
      k[i] = (byte) (id.ms() >>> (56 - 8 * i));
      k[8 + i] = (byte) (id.seq() >>> (56 - 8 * i));
    }
    return k;
  }

  private static StreamId idOfKey(byte[] k) {
    if (k.length != 16) {
      throw DumpPayload.BAD_DATA;
    }
    long ms = 0;
    long seq = 0;
    for (int i = 0; i < 8; i++) {
      ms = (ms << 8) | (k[i] & 0xff);
      seq = (seq << 8) | (k[8 + i] & 0xff);
    }
    return new StreamId(ms, seq);
  }

  private static void id(ByteArrayOutputStream out, StreamId id) {
    DumpPayload.writeLength(out, id.ms());
    DumpPayload.writeLength(out, id.seq());
  }

  private static void millis(ByteArrayOutputStream out, long ms) {
    for (int i = 0; i < 8; i++) {
      out.write((int) (ms >>> (8 * i)) & 0xff);
    }
  }

  // ------------------------------------------------------------------ reading

  /** Reads a stream of RDB type {@code type} (15, 19 or 21), after its type byte. */
  static StreamPayload read(DumpPayload.Reader r, int type) {
    List<Entry> entries = new ArrayList<>();
    int nodes = r.count();
    StreamId previous = null;
    for (int n = 0; n < nodes; n++) {
      StreamId master = idOfKey(r.string());
      List<byte[]> lp = new ArrayList<>();
      Listpack.read(r.string(), lp);
      if (lp.isEmpty()) {
        throw DumpPayload.BAD_DATA;
      }
      for (Entry e : nodeEntries(master, lp)) {
        if (previous != null && e.id().compareTo(previous) <= 0) {
          throw DumpPayload.BAD_DATA;
        }
        previous = e.id();
        entries.add(e);
      }
    }
    long length = r.length();
    StreamId last = readId(r);
    if (length != entries.size() || (previous != null && previous.compareTo(last) > 0)) {
      throw DumpPayload.BAD_DATA;
    }
    StreamId first = entries.isEmpty() ? StreamId.ZERO : entries.getFirst().id();
    StreamId maxDeleted = StreamId.ZERO;
    long entriesAdded = length;
    if (type != DumpPayload.STREAM_LISTPACKS) {
      first = readId(r);
      maxDeleted = readId(r);
      entriesAdded = r.length();
    }
    int groupCount = r.count();
    List<Group> groups = new ArrayList<>();
    java.util.Set<String> groupNames = new java.util.HashSet<>();
    for (int g = 0; g < groupCount; g++) {
      byte[] name = r.string();
      if (!groupNames.add(asCellarName(name))) {
        throw DumpPayload.BAD_DATA;
      }
      StreamId groupLast = readId(r);
      // A payload from before Redis 7 has no read counter: Redis estimates it on loading.
      long entriesRead =
          type == DumpPayload.STREAM_LISTPACKS
              ? new GroupCounters(
                      new StreamEntries.Info(last, entriesAdded, maxDeleted, 0), first, length)
                  .distanceFromFirstEver(groupLast)
              : r.length();
      int pendingCount = r.count();
      Map<StreamId, long[]> pel = new java.util.LinkedHashMap<>();
      for (int p = 0; p < pendingCount; p++) {
        StreamId id = idOfKey(r.bytes(16));
        long deliveredAt = r.littleEndian(8);
        long deliveries = r.length();
        if (pel.put(id, new long[] {deliveredAt, deliveries}) != null) {
          throw DumpPayload.BAD_DATA;
        }
      }
      Map<StreamId, byte[]> owners = new HashMap<>();
      List<Consumer> consumers = new ArrayList<>();
      java.util.Set<String> consumerNames = new java.util.HashSet<>();
      int consumerCount = r.count();
      for (int c = 0; c < consumerCount; c++) {
        byte[] consumer = r.string();
        if (!consumerNames.add(asCellarName(consumer))) {
          throw DumpPayload.BAD_DATA;
        }
        long seenAt = r.littleEndian(8);
        long activeAt = type == DumpPayload.STREAM_LISTPACKS_3 ? r.littleEndian(8) : seenAt;
        consumers.add(new Consumer(consumer, seenAt, activeAt));
        int owned = r.count();
        for (int p = 0; p < owned; p++) {
          StreamId id = idOfKey(r.bytes(16));
          if (!pel.containsKey(id) || owners.put(id, consumer) != null) {
            throw DumpPayload.BAD_DATA;
          }
        }
      }
      List<Pending> pending = new ArrayList<>();
      for (Map.Entry<StreamId, long[]> p : pel.entrySet()) {
        byte[] owner = owners.get(p.getKey());
        if (owner == null) {
          throw DumpPayload.BAD_DATA;
        }
        pending.add(new Pending(p.getKey(), p.getValue()[0], p.getValue()[1], owner));
      }
      pending.sort((a, b) -> a.id().compareTo(b.id()));
      groups.add(new Group(name, groupLast, entriesRead, pending, consumers));
    }
    return new StreamPayload(entries, last, first, maxDeleted, entriesAdded, groups);
  }

  private static StreamId readId(DumpPayload.Reader r) {
    long ms = r.length();
    long seq = r.length();
    return new StreamId(ms, seq);
  }

  /** The live entries of one node's listpack, whose items are {@code lp}. */
  private static List<Entry> nodeEntries(StreamId master, List<byte[]> lp) {
    List<Entry> out = new ArrayList<>();
    int at = 0;
    long count = Listpack.integer(lp.get(at++));
    long deleted = Listpack.integer(lp.get(at++));
    int masterFieldCount = (int) bounded(Listpack.integer(lp.get(at++)), lp.size());
    List<byte[]> masterFields = new ArrayList<>(lp.subList(at, at + masterFieldCount));
    at += masterFieldCount;
    if (Listpack.integer(lp.get(at++)) != 0) {
      throw DumpPayload.BAD_DATA;
    }
    long seen = 0;
    while (at < lp.size()) {
      int flags = (int) Listpack.integer(lp.get(at++));
      StreamId id =
          new StreamId(
              master.ms() + Listpack.integer(lp.get(at++)),
              master.seq() + Listpack.integer(lp.get(at++)));
      List<byte[]> fields = new ArrayList<>();
      if ((flags & FLAG_SAME_FIELDS) != 0) {
        for (byte[] name : masterFields) {
          fields.add(name);
          fields.add(lp.get(at++));
        }
      } else {
        int n = (int) bounded(Listpack.integer(lp.get(at++)), lp.size());
        for (int i = 0; i < 2 * n; i++) {
          fields.add(lp.get(at++));
        }
      }
      at++; // lp-count, for walking backwards
      seen++;
      if ((flags & FLAG_DELETED) == 0) {
        out.add(new Entry(id, fields));
      }
    }
    if (seen != count + deleted || out.size() != count) {
      throw DumpPayload.BAD_DATA;
    }
    return out;
  }

  private static long bounded(long n, int limit) {
    if (n < 0 || n > limit) {
      throw DumpPayload.BAD_DATA;
    }
    return n;
  }
}
