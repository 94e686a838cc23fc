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

  /** A collection's header and its key's expiry ({@link Cellar#NO_EXPIRY} for none). */
  record Found(Header header, long expireAt) {
    static final Found ABSENT = new Found(null, Cellar.NO_EXPIRY);
  }

  /**
   * {@link #header}, with the key's expiry, read in the same lookup and in place ({@link
   * Cellar#readHeader(byte[], Cellar.HeaderSink)}): what every collection command opens its
   * collection with, since it may rewrite the header, which keeps the expiry. {@link Found#ABSENT}
   * if the key is absent.
   *
   * @throws CommandError WRONGTYPE as {@link #header} does
   */
  static Found find(Cellar store, byte[] key, int type) {
    Decoded d = new Decoded();
    if (!store.readHeader(key, d)) {
      if (store.expiryOf(key) != Cellar.ABSENT) {
        throw CommandError.WRONG_TYPE;
      }
      return Found.ABSENT;
    }
    if (d.header.type() != type) {
      throw CommandError.WRONG_TYPE;
    }
    return new Found(d.header, d.expireAt);
  }

  /** A header decoded where the store holds it, with its key's expiry. */
  private static final class Decoded implements Cellar.HeaderSink {
    Header header;
    long expireAt;

    @Override
    public void accept(MemorySegment source, long offset, long length, long expireAt) {
      this.header = CollectionDescriptor.decodeHeader(source, offset, length);
      this.expireAt = expireAt;
    }
  }

  /** The hash or set under argument {@code i}, to read or change through {@code edits}. */
  static Members members(ElementEdits edits, byte[] key, int type) {
    Found f = find(edits.store(), key, type);
    return new Members(edits, key, type, f.header(), f.expireAt());
  }

  /** The list under {@code key}, to read or change through {@code edits}. */
  static ListItems list(ElementEdits edits, byte[] key) {
    Found f = find(edits.store(), key, CollectionDescriptor.LIST);
    return new ListItems(edits, key, f.header(), f.expireAt());
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
