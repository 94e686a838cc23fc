package dev.cellar.server.command;

import java.util.concurrent.atomic.LongAdder;

/**
 * Redis's "dirty" counter: how many changes commands made, for {@code INFO}'s {@code
 * rdb_changes_since_last_save}. A change is counted where Redis counts one: once per key a command
 * modifies (its keyspace event), not for the {@code new} event of a created key nor for the {@code
 * del} of a collection a removal emptied (both part of the one change), nor for expiries and
 * evictions; {@code FLUSHDB} and {@code FLUSHALL} count the keys they remove. Redis counts some
 * commands per element ({@code LPUSH} of three elements is three); here each command's change to a
 * key is one.
 *
 * <p>A save ({@code SAVE}, {@code BGSAVE}) that ends well takes off what was counted when it began,
 * as Redis takes off {@code dirty_before_bgsave}: changes made while a checkpoint ran stay counted.
 */
public final class ChangeCounter {
  private final LongAdder total = new LongAdder();
  private volatile long savedAt;

  void add(long changes) {
    total.add(changes);
  }

  /** Every change counted since the server started: what a save notes when it begins. */
  public long total() {
    return total.sum();
  }

  /** A save that began when {@link #total()} was {@code mark} ended well. */
  public synchronized void saved(long mark) {
    savedAt = Math.max(savedAt, mark);
  }

  /** Changes since the last save that ended well ({@code rdb_changes_since_last_save}). */
  public long sinceSave() {
    return Math.max(0, total.sum() - savedAt);
  }
}
