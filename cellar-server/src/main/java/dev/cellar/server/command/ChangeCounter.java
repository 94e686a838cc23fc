package dev.cellar.server.command;

import java.util.function.LongSupplier;

/**
 * Redis's "dirty" counter, for {@code INFO}'s {@code rdb_changes_since_last_save}: here the records
 * the stores wrote (puts and deletes, the engine's own counts), less those counted when the last
 * save that ended well began, as Redis takes off {@code dirty_before_bgsave}, so changes made while
 * a checkpoint ran stay counted.
 *
 * <p>Counted from the engine, not per command: counting in the command path cost the garbage-free
 * GET/SET path its zero allocations (GarbageFreePathTest), and the engine counts anyway. So a
 * change is a record: most commands write one per key they change, as Redis counts one, and a no-op
 * ({@code SETBIT} of the bit already there, {@code SADD} of a member there) writes none; but a
 * command that writes two records counts two ({@code RENAME}, {@code LMOVE} between two lists), one
 * that changes several parts of one value once counts one ({@code BITFIELD} with two writes, the
 * first {@code PFADD}), and active expiry's deletions count, where Redis counts neither.
 */
public final class ChangeCounter {
  private final LongSupplier records;
  private volatile long savedAt;

  /**
   * @param records the records written so far by every open store
   */
  ChangeCounter(LongSupplier records) {
    this.records = records;
  }

  /** Every record counted since the server started: what a save notes when it begins. */
  public long total() {
    return records.getAsLong();
  }

  /** A save that began when {@link #total()} was {@code mark} ended well. */
  public synchronized void saved(long mark) {
    savedAt = Math.max(savedAt, mark);
  }

  /** Changes since the last save that ended well ({@code rdb_changes_since_last_save}). */
  public long sinceSave() {
    return Math.max(0, total() - savedAt);
  }
}
