package dev.cellar;

/**
 * A {@link ChangeStream} was asked for changes that the log no longer holds: compaction copied the
 * live records of the log segments that held them elsewhere and deleted the segments, so the
 * changes in between (overwritten values, deletes) are gone. Nothing was skipped: the stream stops
 * here. A follower that gets this must start again from a snapshot of the store (a checkpoint and
 * the segments it names) and stream from that snapshot's position.
 *
 * <p>Category {@link CellarException.Category#INVALID_ARGUMENT}: the position asked for is no
 * longer one this store can serve.
 */
public final class ChangesRemovedException extends CellarException {
  private final long position;
  private final long oldestAvailable;

  public ChangesRemovedException(long position, long oldestAvailable) {
    super(
        Category.INVALID_ARGUMENT,
        "changes from sequence "
            + position
            + " are no longer in the log: compaction removed them (the oldest position a stream"
            + " can start from now is "
            + oldestAvailable
            + "); start from a snapshot of the store (a checkpoint and the segments it names)"
            + " and stream from the snapshot's position");
    this.position = position;
    this.oldestAvailable = oldestAvailable;
  }

  /** The sequence number the stream needed next. */
  public long position() {
    return position;
  }

  /**
   * The oldest position from which a stream could start when this was thrown, every change after it
   * being still in the log; later compactions may move it on.
   */
  public long oldestAvailable() {
    return oldestAvailable;
  }
}
