package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.collection.Members;
import java.lang.foreign.MemorySegment;

/**
 * What a key holds, as the commands of each type see it: a collection's header, checked to be of
 * the command's type (Redis's {@code WRONGTYPE} otherwise), or the name of the key's type.
 */
final class CollectionKeys {
  private CollectionKeys() {}

  /**
   * The header of the collection under {@code key} if it is of {@code type}; null if the key is
   * absent.
   *
   * @throws CommandError WRONGTYPE if the key holds a string or a collection of another type
   */
  static Header header(Cellar store, MemorySegment key, int type) {
    Header h = store.readHeader(key, CollectionDescriptor::decodeHeader);
    if (h == null) {
      if (store.expiryOf(key) != Cellar.ABSENT) {
        throw CommandError.WRONG_TYPE;
      }
      return null;
    }
    if (h.type() != type) {
      throw CommandError.WRONG_TYPE;
    }
    return h;
  }

  /** The hash or set under argument {@code i}, to read or change through {@code edits}. */
  static Members members(ElementEdits edits, byte[] key, int type) {
    MemorySegment k = MemorySegment.ofArray(key);
    Header h = header(edits.store(), k, type);
    return new Members(
        edits, key, type, h, dev.cellar.server.collection.OpenCollection.EXPIRY_WHEN_WRITTEN);
  }

  /** The list under {@code key}, to read or change through {@code edits}. */
  static ListItems list(ElementEdits edits, byte[] key) {
    MemorySegment k = MemorySegment.ofArray(key);
    Header h = header(edits.store(), k, CollectionDescriptor.LIST);
    return new ListItems(
        edits, key, h, dev.cellar.server.collection.OpenCollection.EXPIRY_WHEN_WRITTEN);
  }

  /** Redis's name of what {@code key} holds: none, string, hash, set, list or zset. */
  static String typeName(Cellar store, MemorySegment key) {
    Header h = store.readHeader(key, CollectionDescriptor::decodeHeader);
    if (h != null) {
      return CollectionDescriptor.typeName(h.type());
    }
    return store.expiryOf(key) == Cellar.ABSENT ? "none" : "string";
  }

  /** Whether {@code key} holds a collection (a header), not a string. */
  static boolean isCollection(Cellar store, MemorySegment key) {
    return store.readHeader(key, v -> Boolean.TRUE) != null;
  }
}
