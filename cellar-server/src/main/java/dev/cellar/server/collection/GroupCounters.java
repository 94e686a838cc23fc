package dev.cellar.server.collection;

/**
 * A consumer group's read counter ({@code entries-read}) and lag, as Redis 7.2 keeps and estimates
 * them ({@code t_stream.c}: {@code streamRangeHasTombstones}, {@code
 * streamEstimateDistanceFromFirstEverEntry}, {@code streamReplyWithCGLag}). The counter is the
 * number of entries added to the stream up to the group's last delivered id; Redis knows it exactly
 * only while nothing deleted lies ahead of the group, and otherwise reports it unknown (null),
 * which clients see: the same arithmetic here gives the same replies.
 *
 * <p>A snapshot of the stream's counters: its info, its first entry's id (0-0 when empty) and its
 * length, taken once per command.
 */
public record GroupCounters(StreamEntries.Info info, StreamId first, long length) {
  /** An unknown counter, as Redis's {@code SCG_INVALID_ENTRIES_READ}. */
  public static final long UNKNOWN = -1;

  /** The counters of {@code stream} as they are now. */
  public static GroupCounters of(StreamEntries stream) {
    StreamEntries.Entry first = stream.first();
    return new GroupCounters(
        stream.info(), first == null ? StreamId.ZERO : first.id(), stream.count());
  }

  /** Whether an entry deleted from the stream lies at or after {@code start}. */
  public boolean tombstonesFrom(StreamId start) {
    StreamId maxDeleted = info.maxDeleted();
    if (length == 0 || maxDeleted.equals(StreamId.ZERO)) {
      return false;
    }
    if (first.compareTo(maxDeleted) > 0) {
      return false; // the latest deletion is before the first entry
    }
    return start.compareTo(maxDeleted) <= 0;
  }

  /**
   * The number of entries added up to {@code id} where it can be told (the last id; the first
   * entry's or before it with nothing deleted), else {@link #UNKNOWN}.
   */
  public long distanceFromFirstEver(StreamId id) {
    long added = info.entriesAdded();
    if (added == 0) {
      return 0;
    }
    int toLast = id.compareTo(info.last());
    if (length == 0 && toLast <= 0) {
      return added;
    }
    if (toLast == 0) {
      return added;
    } else if (toLast > 0) {
      return UNKNOWN;
    }
    StreamId maxDeleted = info.maxDeleted();
    if (maxDeleted.equals(StreamId.ZERO) || maxDeleted.compareTo(first) < 0) {
      int toFirst = id.compareTo(first);
      if (toFirst < 0) {
        return added - length;
      } else if (toFirst == 0) {
        return added - length + 1;
      }
    }
    return UNKNOWN;
  }

  /** A group's counter after it was delivered the entry {@code id}, past its last one. */
  public long afterDelivery(long entriesRead, StreamId id) {
    if (entriesRead != UNKNOWN && !tombstonesFrom(id)) {
      return entriesRead + 1;
    }
    return info.entriesAdded() != 0 ? distanceFromFirstEver(id) : entriesRead;
  }

  /** The group's lag, or null where Redis cannot tell it. */
  public Long lag(StreamGroups.Group g) {
    long added = info.entriesAdded();
    if (added == 0) {
      return 0L;
    }
    if (g.entriesRead() != UNKNOWN && !tombstonesFrom(g.lastDelivered())) {
      return added - g.entriesRead();
    }
    long read = distanceFromFirstEver(g.lastDelivered());
    return read == UNKNOWN ? null : added - read;
  }
}
