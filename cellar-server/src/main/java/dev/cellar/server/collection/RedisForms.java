package dev.cellar.server.collection;

import dev.cellar.server.resp.Numbers;

/**
 * The form Redis would hold a collection in (listpack, intset, hash table, skip list), kept in the
 * collection's header where its contents cannot tell it. Redis converts a collection to its big
 * form one way only, member by member, under the thresholds set at each change ({@link
 * PackLimits}); a collection that shrank back, or that Cellar spread under its own smaller limit,
 * needs its history for {@code OBJECT ENCODING} to answer as Redis would. Each rule here is one
 * header field, in {@code next} (docs/format/collections.md):
 *
 * <ul>
 *   <li>a spread hash: 1 once Redis would hold it as a table for good;
 *   <li>a set: its form, {@link #SET_INTSET}, {@link #SET_LISTPACK} or {@link #SET_HASHTABLE};
 *   <li>a spread sorted set: {@link #ZSET_LISTPACK_BIT} while Redis would still hold a listpack.
 * </ul>
 */
public final class RedisForms {
  private RedisForms() {}

  /** A set that could still be an intset: all its members integers, never past the limit. */
  public static final int SET_INTSET = 0;

  /** A set that held a member that is not an integer, within the listpack thresholds. */
  public static final int SET_LISTPACK = 1;

  /** A set past the thresholds: a hash table for good. */
  public static final int SET_HASHTABLE = 2;

  /**
   * Set in a spread sorted set's {@code next}, beside the node counter (which never reaches it),
   * while Redis would still hold the set as a listpack: Cellar spreads a set past its own 128
   * members of 64 bytes, and {@code zset-max-listpack-entries} or {@code -value} may be set above
   * them. Cleared for good once the set passes them. Sets spread before this bit existed have it
   * clear, which is what Redis's defaults give them.
   */
  public static final long ZSET_LISTPACK_BIT = 1L << 62;

  /**
   * A spread hash's header after a field was set: marked (its {@code next} 1) once past {@code
   * hash-max-listpack-entries} fields or with an item over {@code hash-max-listpack-value} bytes.
   * Redis keeps a hash as a listpack up to 512 fields by default where Cellar spreads it past 128,
   * so the form alone cannot tell; the mark costs one header rewrite in the hash's life.
   */
  static Header afterHashPut(Header h, byte[] field, byte[] value, PackLimits l) {
    if (h.type() == CollectionDescriptor.HASH
        && h.next() == 0
        && (h.count() > l.hashEntries()
            || field.length > l.hashValue()
            || value.length > l.hashValue())) {
      return h.withNext(1);
    }
    return h;
  }

  /** Whether Redis would hold the hash with this header as a hash table ({@link #afterHashPut}). */
  public static boolean hashTable(Header h) {
    return h != null && h.next() != 0;
  }

  /**
   * The form Redis creates a set in when one command adds {@code members} members to a new key, the
   * first {@code first} ({@code setTypeCreate}'s size hint): an intset for integers that fit one,
   * else a listpack for as many as fit one, else a hash table.
   */
  static int createdSetForm(byte[] first, long members, PackLimits l) {
    if (Numbers.isLong(first, 0, first.length) && members <= l.setIntsetEntries()) {
      return SET_INTSET;
    }
    return members <= l.setEntries() ? SET_LISTPACK : SET_HASHTABLE;
  }

  /**
   * A set's header after {@code member} was added, its form moved on as Redis 7.2's {@code
   * setTypeAddAux} moves it: an intset past {@code set-max-intset-entries} becomes a hash table, an
   * intset given a string a listpack if that fits {@code set-max-listpack-entries} and {@code
   * -value}, else a hash table; a listpack past them a hash table.
   */
  static Header afterSetAdd(Header h, byte[] member, PackLimits l) {
    if (h.type() != CollectionDescriptor.SET) {
      return h;
    }
    long form = h.next();
    long count = h.count();
    if (form == SET_INTSET) {
      if (Numbers.isLong(member, 0, member.length)) {
        form = count > l.setIntsetEntries() ? SET_HASHTABLE : SET_INTSET;
      } else {
        form =
            count <= l.setEntries() && member.length <= l.setValue() ? SET_LISTPACK : SET_HASHTABLE;
      }
    } else if (form == SET_LISTPACK && (count > l.setEntries() || member.length > l.setValue())) {
      form = SET_HASHTABLE;
    }
    return form == h.next() ? h : h.withNext(form);
  }

  /** The form Redis would hold the set with this header in ({@link #SET_INTSET} and the others). */
  public static int setForm(Header h) {
    return h == null ? SET_INTSET : (int) h.next();
  }

  /**
   * The {@code next} of a sorted set spreading now with {@code members} members, the longest {@code
   * longest} bytes: {@link #ZSET_LISTPACK_BIT} if it spreads past Cellar's limits alone, else 0.
   */
  static long spreadZsetNext(long members, long longest, PackLimits l) {
    return members <= l.zsetEntries() && longest <= l.zsetValue() ? ZSET_LISTPACK_BIT : 0;
  }

  /**
   * A spread sorted set's header after {@code member} was added: the bit cleared past the limits.
   */
  static Header afterZsetAdd(Header h, byte[] member, PackLimits l) {
    if ((h.next() & ZSET_LISTPACK_BIT) != 0
        && (h.count() > l.zsetEntries() || member.length > l.zsetValue())) {
      return h.withTree(h.head(), h.next() & ~ZSET_LISTPACK_BIT);
    }
    return h;
  }

  /** Whether Redis would hold the spread sorted set with this header as a listpack. */
  public static boolean zsetListpack(Header h) {
    return h != null && (h.next() & ZSET_LISTPACK_BIT) != 0;
  }
}
