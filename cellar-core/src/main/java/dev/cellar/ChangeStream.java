package dev.cellar;

import java.time.Duration;

/**
 * The store's log as an ordered stream of changes, from a position: the base of replication and
 * backup. Opened with {@link Cellar#changes(long)}; see {@code docs/change-stream.md}.
 *
 * <p>A position is a sequence number. Every put and delete the store accepts gets the next one,
 * store-wide, starting at 1; it never changes, not even when compaction copies the record. A stream
 * opened at position {@code n} delivers every change with a sequence number from {@code n} on, in
 * sequence order, each exactly once, with nothing skipped: while the log still holds them. Where it
 * no longer does, the stream throws {@link ChangesRemovedException} rather than skip.
 *
 * <p>What is delivered is what the store's {@link Fsync} policy acknowledges: under {@link
 * Fsync#ALWAYS} only durable changes (a follower never receives a change a crash could take back);
 * under {@link Fsync#EVERYSEC} and {@link Fsync#NO} every appended change, at once, as a reader of
 * the store would see it.
 *
 * <p>Every record's CRC is checked before it is delivered; a damaged one stops the stream with
 * {@link CorruptStoreException}.
 *
 * <p>Not thread-safe: one thread polls a stream. Close it (it holds one log segment while a batch
 * is in use).
 *
 * <pre>{@code
 * try (ChangeStream changes = db.changes(follower.nextSeq())) {
 *   while (running) {
 *     ChangeBatch batch = changes.poll(Duration.ofSeconds(1));
 *     while (batch.next()) {
 *       if (batch.isDelete()) follower.delete(batch.seq(), batch.key());
 *       else follower.put(batch.seq(), batch.key(), batch.value(), batch.expireAt());
 *     }
 *   }
 * }
 * }</pre>
 */
public interface ChangeStream extends AutoCloseable {

  /**
   * The changes available from {@link #position()}, waiting up to {@code timeout} for the first one
   * if there is none yet; an empty batch if none came. The batch (one object, reused) and the views
   * it hands out are valid until the next call to {@code poll} or {@link #close()}. Waiting parks
   * the thread until the log grows; an interrupt ends the wait early (the interrupt status stays
   * set).
   *
   * @throws ChangesRemovedException if compaction has removed changes at the stream's position
   * @throws CorruptStoreException if a record of the log fails its checksum
   * @throws StoreClosedException once the store is closed
   */
  ChangeBatch poll(Duration timeout);

  /** {@link #poll(Duration)} without waiting. */
  default ChangeBatch poll() {
    return poll(Duration.ZERO);
  }

  /**
   * The sequence number of the next change this stream delivers: one past the last change {@link
   * ChangeBatch#next()} moved to. A follower that stores it with its data can resume from it.
   */
  long position();

  /** Releases the segment the current batch reads; idempotent. */
  @Override
  void close();
}
