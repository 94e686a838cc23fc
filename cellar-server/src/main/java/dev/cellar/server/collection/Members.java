package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.MEMBER;
import static dev.cellar.server.collection.CollectionDescriptor.SLOT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A hash or a set: members, each with a payload (a hash field's value; nothing for a set), in a
 * dense array of slots, so that any member is found, added or removed in O(1) element records and
 * the whole is iterated in slot order. Like a list ({@link ListItems}), it has two forms.
 *
 * <h2>Packed</h2>
 *
 * While it has at most {@link CollectionDescriptor#PACK_MAX_ITEMS} members and no member or payload
 * over {@link CollectionDescriptor#PACK_MAX_ITEM_BYTES} bytes (Redis's default listpack thresholds,
 * or lower ones the settings give: {@link PackLimits}), its members and payloads live in its
 * header, in slot order, and every change rewrites that record; finding a member is a scan of at
 * most 128, as in a Redis listpack. A hash or set is created packed, and the first change past a
 * limit spreads it, for good.
 *
 * <h2>Spread</h2>
 *
 * Member {@code m} of collection {@code id} is the element {@code id 'M' m}, whose value is its
 * slot and its payload; slot {@code s} is the element {@code id 'S' s}, whose value is the member.
 * Slots are 0 to count - 1. Adding appends a slot. Removing moves the last slot's member into the
 * freed slot (rewriting that member's record with its new slot) and drops the last slot: three
 * element writes and two deletes, whatever the size. A packed collection removes the same way, so
 * that the slot order, which cursors and random draws rely on, follows the same rules in both.
 *
 * <h2>Why slots</h2>
 *
 * The engine's index is a hash table, with no order to iterate a collection's members by. The slot
 * array gives {@code HGETALL}, {@code SMEMBERS} and cursors an order, and random members ({@code
 * SRANDMEMBER}, {@code SPOP}, {@code HRANDFIELD}) a uniform draw, at one extra record per member. A
 * cursor walking slots from the top down sees every member present throughout once at least: a
 * removal moves only the last slot's member, downwards, from a slot the cursor has passed or will
 * pass anyway.
 */
public final class Members extends OpenCollection {
  private static final byte[] NONE = new byte[0];

  /** A packed collection's members and payloads, by slot; null when spread. */
  private List<byte[]> members;

  private List<byte[]> payloads;

  /** Whether the packed members changed, so that {@link #finish} writes them into the header. */
  private boolean repack;

  public Members(ElementEdits edits, byte[] key, int type, Header header, long expireAt) {
    super(edits, key, type, header, expireAt);
    if (header == null) {
      members = new ArrayList<>();
      payloads = new ArrayList<>();
    } else if (header.items() != null) {
      boolean hash = type == CollectionDescriptor.HASH;
      List<byte[]> items =
          CollectionDescriptor.unpackItems(header.items(), (hash ? 2 : 1) * header.count());
      members = new ArrayList<>(items.size());
      payloads = new ArrayList<>(items.size());
      for (int i = 0; i < items.size(); i += hash ? 2 : 1) {
        members.add(items.get(i));
        payloads.add(hash ? items.get(i + 1) : NONE);
      }
    }
  }

  /** Whether the members live in the header (Redis would say "listpack"). */
  public boolean isPacked() {
    return members != null;
  }

  private byte[] memberKey(long id, byte[] member) {
    return CollectionDescriptor.elementKey(id, MEMBER, member, 0, member.length);
  }

  /** The member's record value (slot and payload), or null if it is absent. */
  private byte[] record(byte[] member) {
    return header == null ? null : edits.get(memberKey(header.id(), member));
  }

  /** A packed member's slot, or -1. */
  private int indexOf(byte[] member) {
    for (int i = 0; i < members.size(); i++) {
      if (Arrays.equals(members.get(i), member)) {
        return i;
      }
    }
    return -1;
  }

  public boolean contains(byte[] member) {
    return members != null ? indexOf(member) >= 0 : record(member) != null;
  }

  /** The member's payload, or null if it is absent. */
  public byte[] payload(byte[] member) {
    if (members != null) {
      int i = indexOf(member);
      return i < 0 ? null : payloads.get(i).clone();
    }
    byte[] v = record(member);
    if (v == null) {
      return null;
    }
    int at = CollectionDescriptor.payloadOffset(v);
    return Arrays.copyOfRange(v, at, v.length);
  }

  /** Adds the member or replaces its payload; returns whether it was added. */
  public boolean put(byte[] member, byte[] payload, CollectionIds ids) {
    if (members != null) {
      if (header == null) {
        createPacked(ids);
        if (createdForm != RedisForms.SET_INTSET) {
          header = header.withNext(createdForm);
        }
      }
      int i = indexOf(member);
      if (i >= 0) {
        payloads.set(i, payload.clone());
      } else {
        members.add(member.clone());
        payloads.add(payload.length == 0 ? NONE : payload.clone());
        header = header.withCount(members.size());
        noteRedisSetForm(member);
      }
      changed(member, payload, ids);
      return i < 0;
    }
    long id = header.id();
    byte[] mk = memberKey(id, member);
    byte[] old = edits.get(mk);
    if (old != null) {
      edits.put(
          mk,
          CollectionDescriptor.memberValue(
              CollectionDescriptor.slotOf(old), payload, 0, payload.length));
      noteRedisTable(member, payload);
      return false;
    }
    long slot = header.count();
    edits.put(mk, CollectionDescriptor.memberValue(slot, payload, 0, payload.length));
    edits.put(CollectionDescriptor.elementKey(id, SLOT, slot), member.clone());
    header = header.withCount(slot + 1);
    noteRedisTable(member, payload);
    noteRedisSetForm(member);
    return true;
  }

  /** The form a new set starts in ({@link #expectFirst}). */
  private int createdForm = RedisForms.SET_INTSET;

  /**
   * Tells a set about to be created by one command adding {@code members} members, the first {@code
   * first}, so that it starts in the form Redis would create it in ({@link
   * RedisForms#createdSetForm}).
   */
  public void expectFirst(byte[] first, long members) {
    createdForm = RedisForms.createdSetForm(first, members, edits.limits());
  }

  private void noteRedisTable(byte[] member, byte[] payload) {
    header = RedisForms.afterHashPut(header, member, payload, edits.limits());
  }

  private void noteRedisSetForm(byte[] member) {
    header = RedisForms.afterSetAdd(header, member, edits.limits());
  }

  /** Removes the member; returns whether it was there. */
  public boolean remove(byte[] member) {
    if (members != null) {
      int i = indexOf(member);
      if (i < 0) {
        return false;
      }
      int last = members.size() - 1;
      members.set(i, members.get(last));
      payloads.set(i, payloads.get(last));
      members.remove(last);
      payloads.remove(last);
      header = header.withCount(last);
      repack = true;
      return true;
    }
    byte[] old = record(member);
    if (old == null) {
      return false;
    }
    long id = header.id();
    long slot = CollectionDescriptor.slotOf(old);
    long last = header.count() - 1;
    if (slot != last) {
      byte[] moved = memberAt(last);
      byte[] movedKey = memberKey(id, moved);
      byte[] movedValue = edits.get(movedKey);
      int at = CollectionDescriptor.payloadOffset(movedValue);
      edits.put(
          movedKey, CollectionDescriptor.memberValue(slot, movedValue, at, movedValue.length - at));
      edits.put(CollectionDescriptor.elementKey(id, SLOT, slot), moved);
    }
    edits.delete(CollectionDescriptor.elementKey(id, SLOT, last));
    edits.delete(memberKey(id, member));
    header = header.withCount(last);
    return true;
  }

  /** The member in {@code slot} (0 to count - 1). */
  public byte[] memberAt(long slot) {
    if (members != null) {
      return members.get((int) slot);
    }
    byte[] m = edits.get(CollectionDescriptor.elementKey(header.id(), SLOT, slot));
    if (m == null) {
      throw new IllegalStateException(
          "collection " + header.id() + " has no member in slot " + slot + " of " + count());
    }
    return m;
  }

  /**
   * Notes a change to a packed collection that put {@code member} with {@code payload} in it, and
   * spreads it if that took it past a limit.
   */
  private void changed(byte[] member, byte[] payload, CollectionIds ids) {
    repack = true;
    PackLimits limits = edits.limits();
    long maxBytes = limits.packedItemBytes(header.type());
    if (members.size() > limits.packedItems(header.type())
        || member.length > maxBytes
        || payload.length > maxBytes) {
      spread(ids);
      noteRedisTable(member, payload);
    }
  }

  /**
   * Writes a packed collection's members as member and slot records, in their slots, under an id it
   * takes now if it has none.
   */
  private void spread(CollectionIds ids) {
    long id = id(ids);
    for (int slot = 0; slot < members.size(); slot++) {
      byte[] m = members.get(slot);
      byte[] p = payloads.get(slot);
      edits.put(memberKey(id, m), CollectionDescriptor.memberValue(slot, p, 0, p.length));
      edits.put(CollectionDescriptor.elementKey(id, SLOT, slot), m);
    }
    members = null;
    payloads = null;
    repack = false;
    header = header.withItems(null);
  }

  @Override
  public void finish() {
    if (members != null && repack) {
      boolean hash = header.type() == CollectionDescriptor.HASH;
      List<byte[]> items = new ArrayList<>((hash ? 2 : 1) * members.size());
      for (int i = 0; i < members.size(); i++) {
        items.add(members.get(i));
        if (hash) {
          items.add(payloads.get(i));
        }
      }
      header = header.withItems(CollectionDescriptor.packItems(items));
      repack = false;
    }
    super.finish();
  }
}
