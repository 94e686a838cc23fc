package dev.cellar.server.collection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of a collection in the engine (specified in {@code docs/format/collections.md}; this class
 * is the only place that knows the offsets): a <em>header</em> under the collection's own key
 * ({@link dev.cellar.WriteBatch#putHeader}) and <em>elements</em> under keys that start with the
 * collection's id ({@link dev.cellar.WriteBatch#putElement}).
 *
 * <pre>
 * header, 34 bytes, little-endian:
 *   0      1         2         10          18          26
 *   +------+---------+---------+-----------+-----------+-----------+
 *   | type | version | id u64  | count u64 | head i64  | next u64  |
 *   +------+---------+---------+-----------+-----------+-----------+
 *   head: a list's first index, a sorted set's root node; next: a sorted set's next node id (bit
 *   62: Redis would still hold it as a listpack, RedisForms.ZSET_LISTPACK_BIT), a
 *   stream's index after its last entry, 1 on a spread hash that Redis would hold as a table, a
 *   set's form in Redis (RedisForms; docs/format/collections.md)
 *   version 2 (a small list, hash, set or sorted set): its elements (a hash's fields and values
 *   alternating, a set's members, a sorted set's members and scores, f64 little-endian, alternating
 *   in order) follow, each a varint length and its bytes
 *
 * element key:
 *   0                  8     9
 *   +------------------+-----+--------------------------------------+
 *   | id u64 (big-end.)| tag | suffix                               |
 *   +------------------+-----+--------------------------------------+
 *
 *   tag 'M' suffix member        value: varint slot, then the member's payload
 *                                (a hash field's value; nothing for a set member)
 *   tag 'S' suffix slot u64 BE   value: the member in that slot
 *   tag 'L' suffix index u64 BE  value: a list element (index = position + 2^63 - head bias)
 *   tag 'O' no suffix            value: the key of the collection's header (its owner)
 *   tag 'T' suffix node u64 BE   value: a node of a sorted set's tree ({@link SortedMembers})
 *   tag 'X' suffix index u64 BE  value: a stream entry ({@link StreamEntries})
 *   tag 'I' no suffix            value: a stream's last id, entries added, largest deleted id,
 *                                groups numbered
 *   tags 'G' 'g' 'P' 'C' 'c'     a stream's consumer groups ({@link StreamGroups})
 * </pre>
 *
 * The id is unique for the store's life (never reused: {@link CollectionIds}), so elements of a
 * collection that was deleted or replaced can never be mistaken for a newer one's; they are found
 * and removed by {@link OrphanSweeper}. Big-endian ids and slots keep one collection's keys sharing
 * a prefix.
 */
public final class CollectionDescriptor {
  public static final int TYPE_OFFSET = 0;
  public static final int VERSION_OFFSET = 1;
  public static final int ID_OFFSET = 2;
  public static final int COUNT_OFFSET = 10;
  public static final int HEAD_OFFSET = 18;
  public static final int NEXT_OFFSET = 26;
  public static final int HEADER_LENGTH = 34;

  public static final int VERSION = 1;

  /**
   * The version of a small list's, hash's or set's header, which holds its elements after its 34
   * bytes.
   */
  public static final int VERSION_PACKED = 2;

  /**
   * The most elements a collection keeps packed in its header, and the largest element it packs:
   * Redis's default thresholds for its compact encodings (128 entries, 64-byte values), which bound
   * what one change to a packed collection rewrites. A hash, set or sorted set packs under lower
   * thresholds when the settings give them ({@link PackLimits}). A collection that outgrows either
   * moves its elements to element records, for good.
   */
  public static final int PACK_MAX_ITEMS = 128;

  public static final int PACK_MAX_ITEM_BYTES = 64;

  public static final int HASH = 1;
  public static final int SET = 2;
  public static final int LIST = 3;
  public static final int ZSET = 4;
  public static final int STREAM = 5;

  public static final int ID_LENGTH = 8;
  public static final int TAG_OFFSET = ID_LENGTH;
  public static final int SUFFIX_OFFSET = ID_LENGTH + 1;

  public static final byte MEMBER = 'M';
  public static final byte SLOT = 'S';
  public static final byte LIST_ITEM = 'L';
  public static final byte OWNER = 'O';
  public static final byte NODE = 'T';
  public static final byte STREAM_ENTRY = 'X';
  public static final byte STREAM_INFO = 'I';
  public static final byte STREAM_GROUP = 'G';
  public static final byte STREAM_GROUP_LIST = 'g';
  public static final byte STREAM_PENDING = 'P';
  public static final byte STREAM_CONSUMER = 'C';
  public static final byte STREAM_CONSUMER_LIST = 'c';

  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong BE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

  private CollectionDescriptor() {}

  /** The Redis type name of a header's type. */
  public static String typeName(int type) {
    return switch (type) {
      case HASH -> "hash";
      case SET -> "set";
      case LIST -> "list";
      case ZSET -> "zset";
      case STREAM -> "stream";
      default -> "unknown";
    };
  }

  /** Encodes a header. */
  public static byte[] encodeHeader(int type, long id, long count, long head, long next) {
    return encodeHeader(type, id, count, head, next, null);
  }

  /** Encodes a header, holding {@code items} ({@link #packItems}) if not null. */
  public static byte[] encodeHeader(
      int type, long id, long count, long head, long next, byte[] items) {
    byte[] out = new byte[HEADER_LENGTH + (items == null ? 0 : items.length)];
    MemorySegment s = MemorySegment.ofArray(out);
    s.set(ValueLayout.JAVA_BYTE, TYPE_OFFSET, (byte) type);
    s.set(ValueLayout.JAVA_BYTE, VERSION_OFFSET, (byte) (items == null ? VERSION : VERSION_PACKED));
    if (items != null) {
      System.arraycopy(items, 0, out, HEADER_LENGTH, items.length);
    }
    s.set(LE, ID_OFFSET, id);
    s.set(LE, COUNT_OFFSET, count);
    s.set(LE, HEAD_OFFSET, head);
    s.set(LE, NEXT_OFFSET, next);
    return out;
  }

  /**
   * Decodes a header.
   *
   * @throws IllegalStateException if it is not one this version wrote
   */
  public static Header decodeHeader(MemorySegment s) {
    return decodeHeader(s, 0, s.byteSize());
  }

  /**
   * {@link #decodeHeader(MemorySegment)} of the {@code length} bytes of {@code s} at {@code at}.
   */
  public static Header decodeHeader(MemorySegment s, long at, long length) {
    byte version = length < HEADER_LENGTH ? 0 : s.get(ValueLayout.JAVA_BYTE, at + VERSION_OFFSET);
    byte type = length < HEADER_LENGTH ? 0 : s.get(ValueLayout.JAVA_BYTE, at + TYPE_OFFSET);
    boolean plain = version == VERSION && length == HEADER_LENGTH;
    boolean packed = version == VERSION_PACKED && type != STREAM;
    if ((!plain && !packed) || type < HASH || type > STREAM) {
      throw new IllegalStateException(
          "a collection header of " + length + " bytes is of an unknown version or type");
    }
    byte[] items = null;
    if (packed) {
      items = new byte[(int) (length - HEADER_LENGTH)];
      MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + HEADER_LENGTH, items, 0, items.length);
    }
    return new Header(
        type,
        s.get(LE, at + ID_OFFSET),
        s.get(LE, at + COUNT_OFFSET),
        s.get(LE, at + HEAD_OFFSET),
        s.get(LE, at + NEXT_OFFSET),
        items);
  }

  /**
   * A small collection's elements as its header holds them: each a varint length and its bytes (a
   * hash's fields and values alternating).
   */
  public static byte[] packItems(java.util.List<byte[]> items) {
    int n = 0;
    for (byte[] item : items) {
      n += varintSize(item.length) + item.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] item : items) {
      writeVarint(out, at, item.length);
      at += varintSize(item.length);
      System.arraycopy(item, 0, out, at, item.length);
      at += item.length;
    }
    return out;
  }

  /**
   * The {@code count} elements {@link #packItems} wrote into {@code packed}.
   *
   * @throws IllegalStateException if they are not there whole
   */
  public static java.util.ArrayList<byte[]> unpackItems(byte[] packed, long count) {
    java.util.ArrayList<byte[]> out = new java.util.ArrayList<>((int) Math.min(count, 1024));
    int at = 0;
    for (long i = 0; i < count; i++) {
      long length = 0;
      for (int shift = 0; ; shift += 7) {
        if (at >= packed.length || shift > 28) {
          throw new IllegalStateException("a packed list's elements are cut short");
        }
        byte b = packed[at++];
        length |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          break;
        }
      }
      if (length > packed.length - at) {
        throw new IllegalStateException("a packed list's elements are cut short");
      }
      out.add(java.util.Arrays.copyOfRange(packed, at, at + (int) length));
      at += (int) length;
    }
    if (at != packed.length) {
      throw new IllegalStateException("a packed list holds more than its count of elements");
    }
    return out;
  }

  /** An element key: the id, the tag and {@code suffix}. */
  public static byte[] elementKey(long id, byte tag, byte[] suffix, int offset, int length) {
    byte[] out = new byte[SUFFIX_OFFSET + length];
    MemorySegment.ofArray(out).set(BE, 0, id);
    out[TAG_OFFSET] = tag;
    System.arraycopy(suffix, offset, out, SUFFIX_OFFSET, length);
    return out;
  }

  /** An element key whose suffix is a big-endian number (a slot, a list index). */
  public static byte[] elementKey(long id, byte tag, long number) {
    byte[] out = new byte[SUFFIX_OFFSET + Long.BYTES];
    MemorySegment s = MemorySegment.ofArray(out);
    s.set(BE, 0, id);
    out[TAG_OFFSET] = tag;
    s.set(BE, SUFFIX_OFFSET, number);
    return out;
  }

  /** The key of a collection's owner record. */
  public static byte[] ownerKey(long id) {
    byte[] out = new byte[SUFFIX_OFFSET];
    MemorySegment.ofArray(out).set(BE, 0, id);
    out[TAG_OFFSET] = OWNER;
    return out;
  }

  /** Whether {@code key} is an element key of some collection (not, say, the id allocator's). */
  public static boolean isElementKey(byte[] key) {
    return key.length >= SUFFIX_OFFSET;
  }

  /** The id an element key starts with. */
  public static long idOf(byte[] key) {
    return MemorySegment.ofArray(key).get(BE, 0);
  }

  /** The value of a member record: the slot, then the payload. */
  public static byte[] memberValue(long slot, byte[] payload, int offset, int length) {
    int n = varintSize(slot);
    byte[] out = new byte[n + length];
    writeVarint(out, 0, slot);
    System.arraycopy(payload, offset, out, n, length);
    return out;
  }

  /** The slot a member record's value holds. */
  public static long slotOf(byte[] memberValue) {
    long v = 0;
    for (int i = 0, shift = 0; i < memberValue.length; i++, shift += 7) {
      v |= (long) (memberValue[i] & 0x7F) << shift;
      if ((memberValue[i] & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalStateException("a member record's slot is cut short");
  }

  /** Where a member record's payload starts. */
  public static int payloadOffset(byte[] memberValue) {
    int i = 0;
    while ((memberValue[i] & 0x80) != 0) {
      i++;
    }
    return i + 1;
  }

  private static int varintSize(long v) {
    int n = 1;
    while ((v >>>= 7) != 0) {
      n++;
    }
    return n;
  }

  private static void writeVarint(byte[] out, int at, long v) {
    while ((v & ~0x7FL) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at] = (byte) v;
  }
}
