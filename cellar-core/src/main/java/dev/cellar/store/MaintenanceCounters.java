package dev.cellar.store;

import java.util.concurrent.atomic.LongAdder;

/** What maintenance has done since open, for {@link dev.cellar.CellarStats}. */
final class MaintenanceCounters {
  /** Compaction passes that rewrote at least one segment. */
  final LongAdder compactions = new LongAdder();

  /** Bytes those passes reclaimed. */
  final LongAdder compactedBytes = new LongAdder();

  /** Keys compaction took out of the index because they had expired. */
  final LongAdder expiredKeys = new LongAdder();

  final LongAdder checkpoints = new LongAdder();

  /**
   * Copies compaction made of records that were overwritten or deleted before it could point the
   * index at them: left in its output as garbage (see Compactor).
   */
  final LongAdder abandonedCopies = new LongAdder();
}
