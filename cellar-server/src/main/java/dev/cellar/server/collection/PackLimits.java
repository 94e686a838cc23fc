package dev.cellar.server.collection;

/**
 * Redis's encoding thresholds as the server's settings give them ({@code hash-max-listpack-entries}
 * and the rest, docs/server.md): when Redis would turn a small collection into its big form. They
 * decide two things. A collection Cellar keeps packed in its header spreads once it passes the
 * smaller of Redis's threshold and Cellar's own limit ({@link CollectionDescriptor#PACK_MAX_ITEMS},
 * {@link CollectionDescriptor#PACK_MAX_ITEM_BYTES}, which bound how much one change rewrites), so
 * that a packed collection is always one Redis would hold as a listpack; and {@code OBJECT
 * ENCODING} answers what Redis would, where Redis's threshold lies past Cellar's limit.
 *
 * <p>An instance is immutable: a command sees the settings as they were when it began.
 *
 * @param hashEntries {@code hash-max-listpack-entries}
 * @param hashValue {@code hash-max-listpack-value}, bytes of a field or of a value
 * @param setIntsetEntries {@code set-max-intset-entries}
 * @param setEntries {@code set-max-listpack-entries}
 * @param setValue {@code set-max-listpack-value}
 * @param zsetEntries {@code zset-max-listpack-entries}
 * @param zsetValue {@code zset-max-listpack-value}, bytes of a member
 * @param listSize {@code list-max-listpack-size}: entries when positive, else a size class (-1: 4
 *     KiB, -2: 8 KiB, ... -5: 64 KiB)
 */
public record PackLimits(
    long hashEntries,
    long hashValue,
    long setIntsetEntries,
    long setEntries,
    long setValue,
    long zsetEntries,
    long zsetValue,
    int listSize) {

  /** Redis 7.2's defaults. */
  public static final PackLimits REDIS_DEFAULTS =
      new PackLimits(512, 64, 512, 128, 64, 128, 64, -2);

  /** Most members a packed hash, set or sorted set of {@code type} keeps in its header. */
  public long packedItems(int type) {
    return Math.min(entries(type), CollectionDescriptor.PACK_MAX_ITEMS);
  }

  /** Longest member (or hash value) a packed hash, set or sorted set of {@code type} holds. */
  public long packedItemBytes(int type) {
    return Math.min(value(type), CollectionDescriptor.PACK_MAX_ITEM_BYTES);
  }

  /** Redis's entry threshold for {@code type}. */
  public long entries(int type) {
    return switch (type) {
      case CollectionDescriptor.HASH -> hashEntries;
      case CollectionDescriptor.SET -> setEntries;
      case CollectionDescriptor.ZSET -> zsetEntries;
      default -> CollectionDescriptor.PACK_MAX_ITEMS;
    };
  }

  /** Redis's item-size threshold for {@code type}. */
  public long value(int type) {
    return switch (type) {
      case CollectionDescriptor.HASH -> hashValue;
      case CollectionDescriptor.SET -> setValue;
      case CollectionDescriptor.ZSET -> zsetValue;
      default -> CollectionDescriptor.PACK_MAX_ITEM_BYTES;
    };
  }

  /**
   * Whether Redis would keep a list of {@code count} elements, {@code bytes} long as one listpack,
   * as a listpack rather than a quicklist: under the size class when {@code list-max-listpack-size}
   * is negative; else at most that many elements (at least one) in at most 8 KiB, Redis's safety
   * limit.
   */
  public boolean listFits(long bytes, long count) {
    if (listSize < 0) {
      // Redis: -1 is 4 KiB, -2 8 KiB, ..., -5 64 KiB; anything lower counts as -5.
      return bytes <= 4096L << (Math.min(-(long) listSize, 5) - 1);
    }
    return bytes <= LIST_SAFETY_BYTES && count <= Math.max(listSize, 1);
  }

  /** Redis's {@code SIZE_SAFETY_LIMIT}: the most a listpack node limited by count may take. */
  private static final long LIST_SAFETY_BYTES = 8192;
}
