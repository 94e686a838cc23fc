package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.MEMBER;
import static dev.cellar.server.collection.CollectionDescriptor.NODE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A sorted set: members with scores, ordered by (score, member), with O(log n) insertion, removal,
 * rank and range queries, kept in the engine's keyspace of elements.
 *
 * <h2>Packed</h2>
 *
 * Like a small list, hash or set ({@link ListItems}, {@link Members}), a sorted set of at most
 * {@link CollectionDescriptor#PACK_MAX_ITEMS} members of at most {@link
 * CollectionDescriptor#PACK_MAX_ITEM_BYTES} bytes (or under lower thresholds from the settings:
 * {@link PackLimits}) keeps them in its header, in order (Redis's listpack thresholds for sorted
 * sets): a change rewrites that one record, with no id, member records or tree. The first change
 * past a limit spreads it, for good, into the layout below.
 *
 * <h2>Layout</h2>
 *
 * Member {@code m} is the element {@code id 'M' m}, whose value is its score (a little-endian
 * double): {@code ZSCORE} is one lookup. The order is a B+tree whose nodes are elements too, {@code
 * id 'T' node}: a leaf holds up to {@link #MAX_ENTRIES} (score, member) pairs in order (and at most
 * about {@link #MAX_BYTES}); an internal node holds, per child, its node id, how many members it
 * holds (which is what makes rank queries O(log n)), and its smallest key. The header's {@code
 * head} is the root node and {@code next} the next node id. See docs/format/collections.md.
 *
 * <h2>Why a tree of records</h2>
 *
 * The engine's index has no order; a tree kept in memory would have to be rebuilt at every open and
 * would not see the writes of a transaction in progress, which reach this class through {@link
 * ElementEdits} like every other element. A change rewrites the nodes on one root-to-leaf path:
 * about a kilobyte per level for short members, O(log n) as the issue allows. No node is ever
 * merged: a node emptied by removals is dropped from its parent, and a root with one child gives
 * way to it.
 *
 * <h2>Separator keys</h2>
 *
 * An internal node's key for child {@code j > 0} is at most every key under that child and above
 * every key under child {@code j - 1}. Removals may leave it smaller than the child's smallest key,
 * which keeps both properties; a key is always found by descending into the last child whose
 * separator is at most it.
 */
public final class SortedMembers extends OpenCollection {
  /**
   * A node's limits. Every change rewrites the nodes on its path, so they are what a ZADD writes
   * per level; 16 and 1024 wrote a quarter of what 64 and 4096 did, and ran redis-benchmark's ZADD
   * 1.5x and ZPOPMIN 1.3x to 1.5x faster, the tree one or two levels deeper (docs/benchmarks.md); 8
   * and 32 entries were no better.
   */
  static final int MAX_ENTRIES = 16;

  static final int MAX_BYTES = 1024;

  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** A member and its score. */
  public record Entry(double score, byte[] member) {}

  /**
   * A set of keys closed downwards: every key before one that is below is below too. What counting
   * and range queries are asked in terms of ({@link #countBelow}).
   */
  @FunctionalInterface
  public interface Bound {
    boolean below(double score, byte[] member);
  }

  /** A packed set's entries, in order; null when spread. */
  private List<Entry> packed;

  /** Whether {@link #packed} changed, so that {@link #finish} writes it into the header. */
  private boolean repack;

  public SortedMembers(ElementEdits edits, byte[] key, Header header, long expireAt) {
    super(edits, key, CollectionDescriptor.ZSET, header, expireAt);
    if (header == null) {
      packed = new ArrayList<>();
    } else if (header.items() != null) {
      List<byte[]> items = CollectionDescriptor.unpackItems(header.items(), 2 * header.count());
      packed = new ArrayList<>(items.size() / 2);
      for (int i = 0; i < items.size(); i += 2) {
        byte[] score = items.get(i + 1);
        if (score.length != Double.BYTES) {
          throw new IllegalStateException("a packed sorted set's score is not 8 bytes");
        }
        packed.add(
            new Entry(
                Double.longBitsToDouble(MemorySegment.ofArray(score).get(LE, 0)), items.get(i)));
      }
    }
  }

  /** Whether the members live in the header (Redis would say "listpack"). */
  public boolean isPacked() {
    return packed != null;
  }

  /** A packed member's position, or -1. */
  private int indexOf(byte[] member) {
    for (int i = 0; i < packed.size(); i++) {
      if (Arrays.equals(packed.get(i).member, member)) {
        return i;
      }
    }
    return -1;
  }

  /** Where {@code e} goes in the packed order. */
  private int insertionPoint(Entry e) {
    int lo = 0;
    int hi = packed.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compare(packed.get(mid), e) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * Writes a packed set out as member records and a tree, under an id it takes now, when it has
   * grown past a limit.
   */
  private void spreadIfOver(byte[] member, CollectionIds ids) {
    repack = true;
    PackLimits limits = edits.limits();
    if (packed.size() <= limits.packedItems(CollectionDescriptor.ZSET)
        && member.length <= limits.packedItemBytes(CollectionDescriptor.ZSET)) {
      return;
    }
    List<Entry> entries = packed;
    packed = null;
    repack = false;
    id(ids);
    // Spread past Cellar's limits alone, the set is still one Redis would hold as a listpack.
    header =
        header
            .withItems(null)
            .withTree(0, RedisForms.spreadZsetNext(entries.size(), member.length, limits));
    for (Entry e : entries) {
      edits.put(memberKey(e.member), scoreBytes(e.score));
      insert(e);
    }
  }

  private static byte[] scoreBytes(double score) {
    byte[] value = new byte[Long.BYTES];
    MemorySegment.ofArray(value).set(LE, 0, Double.doubleToRawLongBits(score));
    return value;
  }

  @Override
  public void finish() {
    if (packed != null && repack) {
      List<byte[]> items = new ArrayList<>(2 * packed.size());
      for (Entry e : packed) {
        items.add(e.member);
        items.add(scoreBytes(e.score));
      }
      header = header.withItems(CollectionDescriptor.packItems(items));
      repack = false;
    }
    super.finish();
  }

  /** Redis's order: by score, then by member bytes (unsigned), a prefix first. */
  public static int compare(double s1, byte[] m1, double s2, byte[] m2) {
    if (s1 < s2) {
      return -1;
    }
    if (s1 > s2) {
      return 1;
    }
    return Arrays.compareUnsigned(m1, m2);
  }

  private static int compare(Entry a, Entry b) {
    return compare(a.score, a.member, b.score, b.member);
  }

  // ------------------------------------------------------------------ members

  private byte[] memberKey(byte[] member) {
    return CollectionDescriptor.elementKey(header.id(), MEMBER, member, 0, member.length);
  }

  /** The member's score, or null if it is absent. */
  public Double score(byte[] member) {
    if (packed != null) {
      int i = indexOf(member);
      return i < 0 ? null : packed.get(i).score;
    }
    if (header == null) {
      return null;
    }
    byte[] v = edits.get(memberKey(member));
    return v == null ? null : Double.longBitsToDouble(MemorySegment.ofArray(v).get(LE, 0));
  }

  /** Adds the member or moves it to {@code score}; returns whether it was added. */
  public boolean put(byte[] member, double score, CollectionIds ids) {
    if (score == 0) {
      score = 0.0; // -0 and 0 are one score; Redis's small sets store either as 0
    }
    if (packed != null) {
      createPacked(ids);
      int i = indexOf(member);
      if (i >= 0) {
        double old = packed.get(i).score;
        if (Double.compare(old, score) == 0 || (old == 0 && score == 0)) {
          return false;
        }
        packed.remove(i);
      }
      Entry e = new Entry(score, member.clone());
      packed.add(insertionPoint(e), e);
      header = header.withCount(packed.size());
      spreadIfOver(member, ids);
      return i < 0;
    }
    id(ids);
    Double old = score(member);
    if (old != null) {
      if (Double.compare(old, score) == 0 || (old == 0 && score == 0)) {
        return false;
      }
      delete(new Entry(old, member));
      header = header.withCount(header.count() - 1);
    }
    edits.put(memberKey(member), scoreBytes(score));
    insert(new Entry(score, member.clone()));
    header = header.withCount(header.count() + 1);
    header = RedisForms.afterZsetAdd(header, member, edits.limits());
    return old == null;
  }

  /** Removes the member; returns whether it was there. */
  public boolean remove(byte[] member) {
    if (packed != null) {
      int i = indexOf(member);
      if (i < 0) {
        return false;
      }
      packed.remove(i);
      header = header.withCount(packed.size());
      repack = true;
      return true;
    }
    Double old = score(member);
    if (old == null) {
      return false;
    }
    edits.delete(memberKey(member));
    delete(new Entry(old, member));
    header = header.withCount(header.count() - 1);
    return true;
  }

  // ------------------------------------------------------------------ queries

  /** How many members come before every key {@code bound} holds below: the first rank above it. */
  public long countBelow(Bound bound) {
    if (packed != null) {
      int total = 0;
      while (total < packed.size()
          && bound.below(packed.get(total).score, packed.get(total).member)) {
        total++;
      }
      return total;
    }
    long total = 0;
    long id = header == null ? 0 : header.head();
    while (id != 0) {
      Node n = load(id);
      if (n.leaf) {
        for (Entry e : n.keys) {
          if (!bound.below(e.score, e.member)) {
            break;
          }
          total++;
        }
        return total;
      }
      long next = 0;
      for (int j = 0; j < n.keys.size(); j++) {
        if (j + 1 < n.keys.size()
            && bound.below(n.keys.get(j + 1).score, n.keys.get(j + 1).member)) {
          total += n.counts.get(j);
        } else {
          next = n.children.get(j);
          break;
        }
      }
      id = next;
    }
    return total;
  }

  /** The 0-based rank of a member known to hold {@code score}. */
  public long rank(double score, byte[] member) {
    return countBelow((s, m) -> compare(s, m, score, member) < 0);
  }

  /** Receives the entries of a range, in the order asked. */
  @FunctionalInterface
  public interface EntrySink {
    void accept(Entry e);
  }

  /**
   * The entries of ranks {@code from} to {@code to} (both included, within the set), ascending, or
   * descending from {@code to} if {@code reverse}: one descent per leaf.
   */
  public void range(long from, long to, boolean reverse, EntrySink sink) {
    if (header == null || from > to) {
      return;
    }
    if (packed != null) {
      for (long r = reverse ? to : from; reverse ? r >= from : r <= to; r += reverse ? -1 : 1) {
        sink.accept(packed.get((int) r));
      }
      return;
    }
    long r = reverse ? to : from;
    while (reverse ? r >= from : r <= to) {
      long[] offset = new long[1];
      Node leaf = leafOf(r, offset);
      int i = (int) offset[0];
      if (reverse) {
        for (; i >= 0 && r >= from; i--, r--) {
          sink.accept(leaf.keys.get(i));
        }
      } else {
        for (; i < leaf.keys.size() && r <= to; i++, r++) {
          sink.accept(leaf.keys.get(i));
        }
      }
    }
  }

  /** The entry of rank {@code rank} (0 to count - 1). */
  public Entry at(long rank) {
    if (packed != null) {
      return packed.get((int) rank);
    }
    long[] offset = new long[1];
    return leafOf(rank, offset).keys.get((int) offset[0]);
  }

  private Node leafOf(long rank, long[] offset) {
    Node n = load(header.head());
    while (!n.leaf) {
      int j = 0;
      while (j < n.counts.size() - 1 && rank >= n.counts.get(j)) {
        rank -= n.counts.get(j);
        j++;
      }
      n = load(n.children.get(j));
    }
    if (rank >= n.keys.size()) {
      throw new IllegalStateException(
          "sorted set " + header.id() + " has counts that do not match its leaves");
    }
    offset[0] = rank;
    return n;
  }

  // ------------------------------------------------------------------ the tree

  private static final class Node {
    final long id;
    final boolean leaf;
    final List<Entry> keys = new ArrayList<>();
    final List<Long> children = new ArrayList<>();
    final List<Long> counts = new ArrayList<>();

    Node(long id, boolean leaf) {
      this.id = id;
      this.leaf = leaf;
    }

    long total() {
      if (leaf) {
        return keys.size();
      }
      long t = 0;
      for (long c : counts) {
        t += c;
      }
      return t;
    }
  }

  private record Split(long right, Entry rightMin, long leftCount, long rightCount) {}

  private byte[] nodeKey(long node) {
    return CollectionDescriptor.elementKey(header.id(), NODE, node);
  }

  private Node load(long node) {
    byte[] v = edits.get(nodeKey(node));
    if (v == null) {
      throw new IllegalStateException("sorted set " + header.id() + " has no node " + node);
    }
    return NodeCodec.decode(node, v);
  }

  private void save(Node n) {
    edits.put(nodeKey(n.id), NodeCodec.encode(n));
  }

  private Node newNode(boolean leaf) {
    long bit = header.next() & RedisForms.ZSET_LISTPACK_BIT;
    long next = header.next() & ~RedisForms.ZSET_LISTPACK_BIT;
    long id = next == 0 ? 1 : next;
    header = header.withTree(header.head(), (id + 1) | bit);
    return new Node(id, leaf);
  }

  private static int childFor(Node n, Entry e) {
    int j = n.keys.size() - 1;
    while (j > 0 && compare(n.keys.get(j), e) > 0) {
      j--;
    }
    return j;
  }

  private void insert(Entry e) {
    if (header.head() == 0) {
      Node leaf = newNode(true);
      leaf.keys.add(e);
      save(leaf);
      header = header.withTree(leaf.id, header.next());
      return;
    }
    long oldRoot = header.head();
    Split s = insertInto(oldRoot, e);
    if (s != null) {
      Node root = newNode(false);
      root.children.add(oldRoot);
      root.counts.add(s.leftCount);
      root.keys.add(e); // child 0's key is never read: keys below the first separator go there
      root.children.add(s.right);
      root.counts.add(s.rightCount);
      root.keys.add(s.rightMin);
      save(root);
      header = header.withTree(root.id, header.next());
    }
  }

  private Split insertInto(long id, Entry e) {
    Node n = load(id);
    if (n.leaf) {
      int i = 0;
      while (i < n.keys.size() && compare(n.keys.get(i), e) < 0) {
        i++;
      }
      n.keys.add(i, e);
      return saveOrSplit(n);
    }
    int j = childFor(n, e);
    Split s = insertInto(n.children.get(j), e);
    if (j == 0 && compare(e, n.keys.getFirst()) < 0) {
      n.keys.set(0, e);
    }
    if (s == null) {
      n.counts.set(j, n.counts.get(j) + 1);
    } else {
      n.counts.set(j, s.leftCount);
      n.children.add(j + 1, s.right);
      n.counts.add(j + 1, s.rightCount);
      n.keys.add(j + 1, s.rightMin);
    }
    return saveOrSplit(n);
  }

  /** Saves {@code n}, or splits it in two halves if it is over its limits. */
  private Split saveOrSplit(Node n) {
    if (n.keys.size() <= 1
        || (n.keys.size() <= MAX_ENTRIES && NodeCodec.encodedLength(n) <= MAX_BYTES)) {
      save(n);
      return null;
    }
    Node right = newNode(n.leaf);
    int half = n.keys.size() / 2;
    right.keys.addAll(n.keys.subList(half, n.keys.size()));
    n.keys.subList(half, n.keys.size()).clear();
    if (!n.leaf) {
      right.children.addAll(n.children.subList(half, n.children.size()));
      n.children.subList(half, n.children.size()).clear();
      right.counts.addAll(n.counts.subList(half, n.counts.size()));
      n.counts.subList(half, n.counts.size()).clear();
    }
    save(n);
    save(right);
    return new Split(right.id, right.keys.getFirst(), n.total(), right.total());
  }

  private static final int NOT_FOUND = 0;
  private static final int REMOVED = 1;
  private static final int EMPTIED = 2;

  private void delete(Entry e) {
    int result = deleteFrom(header.head(), e);
    if (result == NOT_FOUND) {
      throw new IllegalStateException(
          "sorted set " + header.id() + " has a member missing from its tree");
    }
    if (result == EMPTIED) {
      header = header.withTree(0, header.next());
      return;
    }
    Node root = load(header.head());
    while (!root.leaf && root.children.size() == 1) {
      edits.delete(nodeKey(root.id));
      header = header.withTree(root.children.getFirst(), header.next());
      root = load(header.head());
    }
  }

  private int deleteFrom(long id, Entry e) {
    Node n = load(id);
    if (n.leaf) {
      for (int i = 0; i < n.keys.size(); i++) {
        if (compare(n.keys.get(i), e) == 0) {
          n.keys.remove(i);
          if (n.keys.isEmpty()) {
            edits.delete(nodeKey(id));
            return EMPTIED;
          }
          save(n);
          return REMOVED;
        }
      }
      return NOT_FOUND;
    }
    int j = childFor(n, e);
    int result = deleteFrom(n.children.get(j), e);
    if (result == NOT_FOUND) {
      return NOT_FOUND;
    }
    if (result == EMPTIED) {
      n.children.remove(j);
      n.counts.remove(j);
      n.keys.remove(j);
      if (n.keys.isEmpty()) {
        edits.delete(nodeKey(id));
        return EMPTIED;
      }
    } else {
      n.counts.set(j, n.counts.get(j) - 1);
    }
    save(n);
    return REMOVED;
  }

  /** A node's bytes (docs/format/collections.md, "Sorted sets"). */
  private static final class NodeCodec {
    private static final int LEAF = 0;
    private static final int INTERNAL = 1;

    static int encodedLength(Node n) {
      int length = 3;
      for (Entry e : n.keys) {
        length += (n.leaf ? 0 : 16) + 8 + varintSize(e.member.length) + e.member.length;
      }
      return length;
    }

    static byte[] encode(Node n) {
      byte[] out = new byte[encodedLength(n)];
      MemorySegment s = MemorySegment.ofArray(out);
      out[0] = (byte) (n.leaf ? LEAF : INTERNAL);
      out[1] = (byte) n.keys.size();
      out[2] = (byte) (n.keys.size() >>> 8);
      int at = 3;
      for (int i = 0; i < n.keys.size(); i++) {
        if (!n.leaf) {
          s.set(LE, at, n.children.get(i));
          s.set(LE, at + 8, n.counts.get(i));
          at += 16;
        }
        Entry e = n.keys.get(i);
        s.set(LE, at, Double.doubleToRawLongBits(e.score));
        at += 8;
        at = writeVarint(out, at, e.member.length);
        System.arraycopy(e.member, 0, out, at, e.member.length);
        at += e.member.length;
      }
      return out;
    }

    static Node decode(long id, byte[] v) {
      MemorySegment s = MemorySegment.ofArray(v);
      Node n = new Node(id, v[0] == LEAF);
      int count = (v[1] & 0xFF) | (v[2] & 0xFF) << 8;
      int at = 3;
      for (int i = 0; i < count; i++) {
        if (!n.leaf) {
          n.children.add(s.get(LE, at));
          n.counts.add(s.get(LE, at + 8));
          at += 16;
        }
        double score = Double.longBitsToDouble(s.get(LE, at));
        at += 8;
        int length = 0;
        int shift = 0;
        int b;
        do {
          b = v[at++];
          length |= (b & 0x7F) << shift;
          shift += 7;
        } while ((b & 0x80) != 0);
        n.keys.add(new Entry(score, Arrays.copyOfRange(v, at, at + length)));
        at += length;
      }
      return n;
    }

    private static int varintSize(int v) {
      int n = 1;
      while ((v >>>= 7) != 0) {
        n++;
      }
      return n;
    }

    private static int writeVarint(byte[] out, int at, int v) {
      while ((v & ~0x7F) != 0) {
        out[at++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      out[at++] = (byte) v;
      return at;
    }
  }
}
