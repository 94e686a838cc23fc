package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.STREAM_ENTRY;
import static dev.cellar.server.collection.CollectionDescriptor.STREAM_INFO;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream: entries with increasing ids, each its own element record at consecutive indexes from
 * the header's {@code head} to its {@code next}; the stream's own numbers (last id, entries added,
 * largest deleted id) in one more element.
 *
 * <h2>Why an array</h2>
 *
 * Ids only grow, so the entries in index order are in id order: an id is found by binary search
 * over the indexes, O(log n) lookups, and an append ({@code XADD}) writes one record and the
 * header, whatever the length. {@code XDEL} leaves a tombstone in place (the entry's id, no fields)
 * so the order stays searchable, as Redis marks deleted entries in its listpacks; tombstones at the
 * front are dropped at once, and trimming ({@code XTRIM}, {@code MAXLEN}) drops entries from the
 * front. The header's count is of live entries.
 */
public final class StreamEntries extends OpenCollection {
  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** An entry: its id and its fields and values, alternating (none for a tombstone). */
  public record Entry(StreamId id, List<byte[]> fields, boolean deleted) {}

  /** The stream's own numbers, kept in its {@code I} element; {@code groups} numbers handed out. */
  public record Info(StreamId last, long entriesAdded, StreamId maxDeleted, long groups) {
    static final Info EMPTY = new Info(StreamId.ZERO, 0, StreamId.ZERO, 0);

    public Info withGroups(long n) {
      return new Info(last, entriesAdded, maxDeleted, n);
    }
  }

  private Info info;

  public StreamEntries(ElementEdits edits, byte[] key, Header header, long expireAt) {
    super(edits, key, CollectionDescriptor.STREAM, header, expireAt);
  }

  /** A stream exists while it has a header, even with no entries (unlike other types). */
  @Override
  public boolean exists() {
    return header != null;
  }

  @Override
  public void finish() {
    if (header != null && info != null) {
      edits.put(infoKey(), encodeInfo(info));
    }
    finishKeepingEmpty();
  }

  private byte[] infoKey() {
    return CollectionDescriptor.elementKey(header.id(), STREAM_INFO, new byte[0], 0, 0);
  }

  private byte[] entryKey(long index) {
    return CollectionDescriptor.elementKey(header.id(), STREAM_ENTRY, index);
  }

  public Info info() {
    if (info == null) {
      byte[] v = header == null ? null : edits.get(infoKey());
      info = v == null ? Info.EMPTY : decodeInfo(v);
    }
    return info;
  }

  /** Creates the stream if it has no header yet (XADD, XGROUP CREATE MKSTREAM). */
  public void create(CollectionIds ids) {
    if (header == null) {
      id(ids);
      info = Info.EMPTY;
    }
  }

  /** The stream's id, for the records of its groups. */
  public long id() {
    return header.id();
  }

  /** Appends an entry of id {@code id}, above the last; the caller checked the order. */
  public void append(StreamId id, List<byte[]> fields) {
    long index = header.next() == 0 ? header.head() : header.next();
    edits.put(entryKey(index), encodeEntry(id, fields, false));
    header = new Header(header.type(), header.id(), header.count() + 1, header.head(), index + 1);
    Info i = info();
    info = new Info(id, i.entriesAdded() + 1, i.maxDeleted(), i.groups());
  }

  /** Sets the last id and the entries-added count (XSETID). */
  public void setInfo(Info newInfo) {
    info = newInfo;
  }

  private long end() {
    return header == null ? 0 : Math.max(header.head(), header.next());
  }

  private Entry read(long index) {
    byte[] v = edits.get(entryKey(index));
    if (v == null) {
      throw new IllegalStateException("stream " + header.id() + " has no entry at " + index);
    }
    return decodeEntry(v);
  }

  /** The first index whose entry's id is at least {@code id} (end() if none). */
  private long lowerBound(StreamId id) {
    long lo = header.head();
    long hi = end();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (read(mid).id().compareTo(id) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * Live entries with ids from {@code from} to {@code to} (both included), ascending, or descending
   * from {@code to} if {@code reverse}; at most {@code count} (negative: all).
   */
  public List<Entry> range(StreamId from, StreamId to, long count, boolean reverse) {
    List<Entry> out = new ArrayList<>();
    if (header == null || header.count() == 0 || from.compareTo(to) > 0 || count == 0) {
      return out;
    }
    if (!reverse) {
      for (long i = lowerBound(from); i < end() && (count < 0 || out.size() < count); i++) {
        Entry e = read(i);
        if (e.id().compareTo(to) > 0) {
          break;
        }
        if (!e.deleted()) {
          out.add(e);
        }
      }
      return out;
    }
    long i = to.equals(StreamId.MAX) ? end() - 1 : lowerBound(to.next()) - 1;
    for (; i >= header.head() && (count < 0 || out.size() < count); i--) {
      Entry e = read(i);
      if (e.id().compareTo(from) < 0) {
        break;
      }
      if (!e.deleted()) {
        out.add(e);
      }
    }
    return out;
  }

  /** Deletes the entry of id {@code id}; returns whether it was there. */
  public boolean delete(StreamId id) {
    if (header == null || header.count() == 0) {
      return false;
    }
    long i = lowerBound(id);
    if (i >= end()) {
      return false;
    }
    Entry e = read(i);
    if (e.deleted() || !e.id().equals(id)) {
      return false;
    }
    edits.put(entryKey(i), encodeEntry(id, List.of(), true));
    header = header.withCount(header.count() - 1);
    Info in = info();
    if (id.compareTo(in.maxDeleted()) > 0) {
      info = new Info(in.last(), in.entriesAdded(), id, in.groups());
    }
    dropDeadFront();
    return true;
  }

  /** Drops tombstones at the front, so that the head is a live entry or the end. */
  private void dropDeadFront() {
    long head = header.head();
    while (head < end() && read(head).deleted()) {
      edits.delete(entryKey(head));
      head++;
    }
    header = new Header(header.type(), header.id(), header.count(), head, end());
  }

  /** Removes live entries from the front while {@code more} says so; returns how many. */
  public long trimFront(java.util.function.Predicate<Entry> more, long limit) {
    long removed = 0;
    long head = header == null ? 0 : header.head();
    while (header != null
        && head < end()
        && header.count() > 0
        && (limit <= 0 || removed < limit)) {
      Entry e = read(head);
      if (!e.deleted()) {
        if (!more.test(e)) {
          break;
        }
        removed++;
        header = header.withCount(header.count() - 1);
        Info in = info();
        if (e.id().compareTo(in.maxDeleted()) > 0) {
          info = new Info(in.last(), in.entriesAdded(), e.id(), in.groups());
        }
      }
      edits.delete(entryKey(head));
      head++;
    }
    if (header != null) {
      header = new Header(header.type(), header.id(), header.count(), head, Math.max(head, end()));
    }
    return removed;
  }

  /** The first live entry, or null. */
  public Entry first() {
    List<Entry> one = range(StreamId.ZERO, StreamId.MAX, 1, false);
    return one.isEmpty() ? null : one.getFirst();
  }

  /** The last live entry, or null. */
  public Entry last() {
    List<Entry> one = range(StreamId.ZERO, StreamId.MAX, 1, true);
    return one.isEmpty() ? null : one.getFirst();
  }

  // ------------------------------------------------------------------ encoding

  private static byte[] encodeEntry(StreamId id, List<byte[]> fields, boolean deleted) {
    int length = 1 + 16 + 5;
    for (byte[] f : fields) {
      length += 5 + f.length;
    }
    byte[] out = new byte[length];
    MemorySegment s = MemorySegment.ofArray(out);
    out[0] = (byte) (deleted ? 1 : 0);
    s.set(LE, 1, id.ms());
    s.set(LE, 9, id.seq());
    int at = writeVarint(out, 17, fields.size());
    for (byte[] f : fields) {
      at = writeVarint(out, at, f.length);
      System.arraycopy(f, 0, out, at, f.length);
      at += f.length;
    }
    return java.util.Arrays.copyOf(out, at);
  }

  private static Entry decodeEntry(byte[] v) {
    MemorySegment s = MemorySegment.ofArray(v);
    StreamId id = new StreamId(s.get(LE, 1), s.get(LE, 9));
    int[] at = {17};
    int n = readVarint(v, at);
    List<byte[]> fields = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int length = readVarint(v, at);
      fields.add(java.util.Arrays.copyOfRange(v, at[0], at[0] + length));
      at[0] += length;
    }
    return new Entry(id, fields, v[0] == 1);
  }

  private static byte[] encodeInfo(Info i) {
    byte[] out = new byte[48];
    MemorySegment s = MemorySegment.ofArray(out);
    s.set(LE, 40, i.groups());
    s.set(LE, 0, i.last().ms());
    s.set(LE, 8, i.last().seq());
    s.set(LE, 16, i.entriesAdded());
    s.set(LE, 24, i.maxDeleted().ms());
    s.set(LE, 32, i.maxDeleted().seq());
    return out;
  }

  private static Info decodeInfo(byte[] v) {
    MemorySegment s = MemorySegment.ofArray(v);
    return new Info(
        new StreamId(s.get(LE, 0), s.get(LE, 8)),
        s.get(LE, 16),
        new StreamId(s.get(LE, 24), s.get(LE, 32)),
        v.length >= 48 ? s.get(LE, 40) : 0);
  }

  private static int writeVarint(byte[] out, int at, int v) {
    while ((v & ~0x7F) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }

  private static int readVarint(byte[] v, int[] at) {
    int value = 0;
    int shift = 0;
    int b;
    do {
      b = v[at[0]++];
      value |= (b & 0x7F) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    return value;
  }
}
