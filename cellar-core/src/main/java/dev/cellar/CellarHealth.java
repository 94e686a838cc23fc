package dev.cellar;

import java.io.IOException;

/**
 * Whether a store can take writes, and how its background work went, at one moment. Reads go on in
 * every state.
 *
 * @param writeFailure the fsync failure that disabled writes until the store is reopened, or null.
 *     After a failed fsync the kernel may have dropped the pages it could not write, so the engine
 *     never retries it as if it had succeeded
 * @param diskFull the last write refused for lack of disk space, or null once space has returned (a
 *     later write, or the engine's probe once a second, found some)
 * @param checkpointFailure why the last checkpoint attempt failed, or null if it succeeded or none
 *     was tried
 * @param compactionFailure why the last compaction pass failed, or null if it succeeded or none was
 *     tried
 * @param checkpointing whether a checkpoint is being written now
 * @param compacting whether a compaction pass is rewriting segments now
 */
public record CellarHealth(
    IOException writeFailure,
    DiskFullException diskFull,
    Exception checkpointFailure,
    Exception compactionFailure,
    boolean checkpointing,
    boolean compacting) {

  /** Whether writes are accepted now: no failed fsync, and not out of disk space. */
  public boolean writable() {
    return writeFailure == null && diskFull == null;
  }
}
