package dev.cellar;

import java.lang.foreign.MemorySegment;

/**
 * A run of consecutive changes from a {@link ChangeStream}, read in place from one log segment: a
 * cursor, moved with {@link #next()}, whose accessors describe the change it is on. The key and the
 * value are read-only views of the log (no copy); they, and the batch, are valid until the stream's
 * next {@code poll} or {@code close}. Copy what must outlive that.
 *
 * <p>A change's record is checked (its CRC) when {@link #next()} reaches it, before any accessor
 * shows it.
 */
public interface ChangeBatch {

  /**
   * Moves to the next change; false at the end of the batch.
   *
   * @throws CorruptStoreException if the next record is damaged (nothing of it is delivered)
   * @throws StoreClosedException if the store was closed while the batch was in use
   */
  boolean next();

  /** The change's sequence number, its position in the log. */
  long seq();

  /** Whether the change removed the key ({@link #value()} is then empty). */
  boolean isDelete();

  /**
   * The keyspace of the current change: {@link WriteBatch#PLAIN} (a plain put or any delete of a
   * plain key), {@link WriteBatch#HEADER} or {@link WriteBatch#ELEMENT}.
   */
  int kind();

  /**
   * The epoch milliseconds after which a put's value is gone, or {@link Cellar#NO_EXPIRY}. A key
   * that expires produces no change of its own: a follower applies the expiry it was given.
   */
  long expireAt();

  /** The key, a read-only view of the log. */
  MemorySegment key();

  /** The value (empty for a delete), a read-only view of the log. */
  MemorySegment value();
}
