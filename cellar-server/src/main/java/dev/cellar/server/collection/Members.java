package dev.cellar.server.collection;

import static dev.cellar.server.collection.CollectionDescriptor.MEMBER;
import static dev.cellar.server.collection.CollectionDescriptor.SLOT;

/**
 * A hash or a set: members, each with a payload (a hash field's value; nothing for a set), kept as
 * a dense array of slots so that any member is found, added or removed in O(1) element records and
 * the whole is iterated in slot order.
 *
 * <h2>Layout</h2>
 *
 * Member {@code m} of collection {@code id} is the element {@code id 'M' m}, whose value is its
 * slot and its payload; slot {@code s} is the element {@code id 'S' s}, whose value is the member.
 * Slots are 0 to count - 1. Adding appends a slot. Removing moves the last slot's member into the
 * freed slot (rewriting that member's record with its new slot) and drops the last slot: three
 * element writes and two deletes, whatever the size.
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
  public Members(ElementEdits edits, byte[] key, int type, Header header, long expireAt) {
    super(edits, key, type, header, expireAt);
  }

  private byte[] memberKey(long id, byte[] member) {
    return CollectionDescriptor.elementKey(id, MEMBER, member, 0, member.length);
  }

  /** The member's record value (slot and payload), or null if it is absent. */
  private byte[] record(byte[] member) {
    return header == null ? null : edits.get(memberKey(header.id(), member));
  }

  public boolean contains(byte[] member) {
    return record(member) != null;
  }

  /** The member's payload, or null if it is absent. */
  public byte[] payload(byte[] member) {
    byte[] v = record(member);
    if (v == null) {
      return null;
    }
    int at = CollectionDescriptor.payloadOffset(v);
    return java.util.Arrays.copyOfRange(v, at, v.length);
  }

  /** Adds the member or replaces its payload; returns whether it was added. */
  public boolean put(byte[] member, byte[] payload, CollectionIds ids) {
    long id = id(ids);
    byte[] mk = memberKey(id, member);
    byte[] old = edits.get(mk);
    if (old != null) {
      edits.put(
          mk,
          CollectionDescriptor.memberValue(
              CollectionDescriptor.slotOf(old), payload, 0, payload.length));
      return false;
    }
    long slot = header.count();
    edits.put(mk, CollectionDescriptor.memberValue(slot, payload, 0, payload.length));
    edits.put(CollectionDescriptor.elementKey(id, SLOT, slot), member.clone());
    header = header.withCount(slot + 1);
    return true;
  }

  /** Removes the member; returns whether it was there. */
  public boolean remove(byte[] member) {
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
    byte[] m = edits.get(CollectionDescriptor.elementKey(header.id(), SLOT, slot));
    if (m == null) {
      throw new IllegalStateException(
          "collection " + header.id() + " has no member in slot " + slot + " of " + count());
    }
    return m;
  }
}
