package dev.cellar.server.collection;

/**
 * A collection's header ({@link CollectionDescriptor}): its type, its id, how many members or
 * elements it has and, for a list, the index of its first element.
 */
public record Header(int type, long id, long count, long head) {
  public Header withCount(long newCount) {
    return new Header(type, id, newCount, head);
  }

  public Header withHead(long newHead, long newCount) {
    return new Header(type, id, newCount, newHead);
  }

  byte[] encode() {
    return CollectionDescriptor.encodeHeader(type, id, count, head);
  }
}
