package dev.cellar.server.collection;

/**
 * A collection's header ({@link CollectionDescriptor}): its type, its id, how many members or
 * elements it has; for a list, the index of its first element ({@code head}); for a sorted set, the
 * root of its tree ({@code head}) and the next node id to hand out ({@code next}).
 */
public record Header(int type, long id, long count, long head, long next) {
  public Header withCount(long newCount) {
    return new Header(type, id, newCount, head, next);
  }

  public Header withHead(long newHead, long newCount) {
    return new Header(type, id, newCount, newHead, next);
  }

  public Header withTree(long root, long nextNode) {
    return new Header(type, id, count, root, nextNode);
  }

  byte[] encode() {
    return CollectionDescriptor.encodeHeader(type, id, count, head, next);
  }
}
