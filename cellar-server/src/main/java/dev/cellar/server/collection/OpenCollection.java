package dev.cellar.server.collection;

import dev.cellar.Cellar;

/**
 * A collection one command is reading or changing: its key, its header as the command leaves it,
 * and the edits it makes. Created absent when the key holds nothing, and created for real by the
 * first element added (a list, hash, set or sorted set packed, with no id: {@link #createPacked});
 * deleted, with its owner record if it has one, when its last element goes (Redis deletes empty
 * collections). {@link #finish} hands the header to the edits for the one atomic write.
 */
public abstract class OpenCollection {
  protected final ElementEdits edits;
  protected final byte[] key;
  private final int type;
  private final Header original;
  private long expireAt;
  protected Header header;

  /**
   * @param header the key's header, or null if the key is absent
   * @param expireAt the key's expiry ({@link Cellar#NO_EXPIRY} for none), kept by every rewrite
   *     (read with the header, in the same lookup: see {@link Cellar#readHeader(
   *     java.lang.foreign.MemorySegment, Cellar.HeaderReader)})
   */
  protected OpenCollection(ElementEdits edits, byte[] key, int type, Header header, long expireAt) {
    this.edits = edits;
    this.key = key;
    this.type = type;
    this.original = header;
    this.header = header;
    this.expireAt = header == null ? Cellar.NO_EXPIRY : expireAt;
  }

  public byte[] key() {
    return key;
  }

  /** Members or elements it holds now. */
  public long count() {
    return header == null ? 0 : header.count();
  }

  public boolean exists() {
    return header != null && header.count() > 0;
  }

  /**
   * Its id; a fresh one, with the owner record naming the key, if it had none (the collection being
   * created, or a packed one spreading).
   */
  protected long id(CollectionIds ids) {
    if (header == null || header.id() == 0) {
      long id = ids.next();
      header = header == null ? new Header(type, id, 0, 0, 0) : header.withId(id);
      edits.put(CollectionDescriptor.ownerKey(id), key.clone());
    }
    return header.id();
  }

  /**
   * Creates the collection packed if it has no header yet: with no id (0) and no owner record,
   * since it has no element records for them to name, until it spreads ({@link #id}). The store is
   * marked as holding collections all the same ({@link CollectionIds#markUsed}).
   */
  protected void createPacked(CollectionIds ids) {
    if (header == null) {
      ids.markUsed();
      header = new Header(type, 0, 0, 0, 0);
    }
  }

  /** {@link #finish} for a type that stays when empty (a stream). */
  protected void finishKeepingEmpty() {
    if (header != original) {
      edits.header(key, header, expiry());
    }
  }

  private long expiry() {
    return expireAt;
  }

  /**
   * {@link #finish}, the collection taking {@code at} as its expiry (a copy made with its source's,
   * where a new collection would otherwise have none).
   */
  public void finishWithExpiry(long at) {
    expireAt = at;
    finish();
  }

  /**
   * Hands the header as the command leaves it to the edits: unchanged headers are not rewritten,
   * and an empty collection is deleted with its owner record.
   */
  public void finish() {
    if (header == original) {
      return;
    }
    if (header.count() == 0 && type != CollectionDescriptor.STREAM) {
      if (original != null) {
        edits.header(key, null, Cellar.NO_EXPIRY);
      }
      if (header.id() != 0) {
        edits.delete(CollectionDescriptor.ownerKey(header.id()));
      }
      return;
    }
    edits.header(key, header, expiry());
  }
}
