package dev.cellar.server.collection;

/**
 * A collection's header ({@link CollectionDescriptor}): its type, its id, how many members or
 * elements it has; for a list, the index of its first element ({@code head}); for a sorted set, the
 * root of its tree ({@code head}) and the next node id to hand out ({@code next}). A small list
 * keeps its elements in the header itself, {@code items} (packed as {@link
 * CollectionDescriptor#packItems} writes them; null for every other collection).
 */
public record Header(int type, long id, long count, long head, long next, byte[] items) {
  public Header(int type, long id, long count, long head, long next) {
    this(type, id, count, head, next, null);
  }

  public Header withCount(long newCount) {
    return new Header(type, id, newCount, head, next, items);
  }

  public Header withHead(long newHead, long newCount) {
    return new Header(type, id, newCount, newHead, next, items);
  }

  public Header withTree(long root, long nextNode) {
    return new Header(type, id, count, root, nextNode, items);
  }

  /** This header with {@code newNext} as its {@code next}. */
  public Header withNext(long newNext) {
    return new Header(type, id, count, head, newNext, items);
  }

  /** This header with the id {@code newId} (a packed collection gets one when it spreads). */
  public Header withId(long newId) {
    return new Header(type, newId, count, head, next, items);
  }

  /** This header holding {@code packed} as its list's elements (null: in element records). */
  public Header withItems(byte[] packed) {
    return new Header(type, id, count, head, next, packed);
  }

  byte[] encode() {
    return CollectionDescriptor.encodeHeader(type, id, count, head, next, items);
  }
}
