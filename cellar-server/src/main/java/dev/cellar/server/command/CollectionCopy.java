package dev.cellar.server.command;

import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.CollectionIds;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.collection.Members;
import dev.cellar.server.collection.SortedMembers;
import java.lang.foreign.MemorySegment;

/**
 * {@code COPY} of a collection: a new collection, with an id of its own, holding the same members
 * or elements, under the destination key with the source's expiry; written by the caller's edits as
 * one unit (so a collection larger than one unit of the log cannot be copied, and the copy fails
 * with nothing written). O(n), as in Redis.
 */
final class CollectionCopy {
  private CollectionCopy() {}

  /**
   * As {@link #copy(ElementEdits, ElementEdits, Values.AnyCurrent, byte[], CollectionIds)}, in one
   * database.
   */
  static void copy(ElementEdits edits, Values.AnyCurrent source, byte[] to, CollectionIds ids) {
    copy(edits, edits, source, to, ids);
  }

  /**
   * Copies {@code source}, read through {@code read}, to {@code to} written by {@code edits}, with
   * new ids from {@code ids} (the destination store's); the two edits differ when the copy goes to
   * another database ({@code COPY ... DB}, {@code MOVE}).
   */
  static void copy(
      ElementEdits read,
      ElementEdits edits,
      Values.AnyCurrent source,
      byte[] to,
      CollectionIds ids) {
    Header h = CollectionDescriptor.decodeHeader(MemorySegment.ofArray(source.value()));
    if (h.type() == CollectionDescriptor.LIST) {
      ListItems from = new ListItems(read, new byte[0], h, source.expireAt());
      ListItems into = new ListItems(edits, to, null, source.expireAt());
      for (long p = 0; p < h.count(); p++) {
        into.pushRight(from.get(p), ids);
      }
      into.finishWithExpiry(source.expireAt());
      return;
    }
    if (h.type() == CollectionDescriptor.STREAM) {
      // Entries, counters and consumer groups (with their pending entries and consumers), as
      // Redis copies a stream: the same path as DUMP and RESTORE.
      StreamDump.restore(
          edits,
          ids,
          to,
          StreamDump.of(read, new byte[0], h, source.expireAt()),
          source.expireAt());
      return;
    }
    if (h.type() == CollectionDescriptor.ZSET) {
      SortedMembers from = new SortedMembers(read, new byte[0], h, source.expireAt());
      SortedMembers into = new SortedMembers(edits, to, null, source.expireAt());
      from.range(0, h.count() - 1, false, e -> into.put(e.member(), e.score(), ids));
      into.finishWithExpiry(source.expireAt());
      return;
    }
    Members from = new Members(read, new byte[0], h.type(), h, source.expireAt());
    Members into = new Members(edits, to, h.type(), null, source.expireAt());
    for (long slot = 0; slot < h.count(); slot++) {
      byte[] member = from.memberAt(slot);
      into.put(member, from.payload(member), ids);
    }
    into.finishWithExpiry(source.expireAt());
  }
}
