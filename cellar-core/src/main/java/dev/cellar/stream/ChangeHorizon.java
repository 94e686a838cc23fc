package dev.cellar.stream;

/**
 * The store's side of a change stream: which changes it may deliver yet, and how it waits for more.
 * The store decides (from its fsync policy); the stream only reads the log.
 */
public interface ChangeHorizon {

  /** The highest sequence number a stream may deliver now. */
  long visibleSeq();

  /** The highest sequence number appended to the log, durable or not. */
  long appendedSeq();

  /**
   * Returns once {@link #visibleSeq()} reaches {@code seq}, {@code timeoutNanos} have passed, the
   * store closes or the thread is interrupted (its interrupt status then stays set). Sleeps; never
   * spins.
   */
  void awaitVisible(long seq, long timeoutNanos);

  /** Throws {@link dev.cellar.StoreClosedException} once the store is closed. */
  void checkOpen();
}
