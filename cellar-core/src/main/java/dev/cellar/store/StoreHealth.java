package dev.cellar.store;

import dev.cellar.CellarHealth;
import dev.cellar.DiskFullException;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.log.LogWriter;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Whether the store may take writes, and the state behind {@link CellarHealth}.
 *
 * <h2>Failed fsync</h2>
 *
 * A failed fsync of the log disables writes for good ({@link #writeFailed}): the kernel may have
 * dropped the pages it could not write, so no later fsync can vouch for them (PostgreSQL's
 * "fsyncgate"); reads go on, and a reopen recovers from what is on disk.
 *
 * <h2>Full disk</h2>
 *
 * A full disk refuses writes ({@link DiskFullException}) from the first one that found no space
 * until a probe finds space again ({@link #probeSpace()}, run by each refused write and once a
 * second by the maintenance agent, so the state clears without a write). Every write is refused
 * meanwhile, even one small enough for the blocks still reserved ahead of the log's tail: otherwise
 * small writes would succeed while large ones fail, and the state that {@code INFO} and health
 * checks report would flap with each. The log reserves blocks ahead, so a refused write has written
 * nothing, and every acknowledged one is intact.
 *
 * <p>Thread-safe: fields are volatile and each is written by whoever observed the event.
 */
final class StoreHealth implements GroupCommit.FailureSink {
  private static final System.Logger LOG = System.getLogger("dev.cellar");
  private static final long DISK_FULL_LOG_NANOS = 60_000_000_000L;
  static final String SPACE_PROBE = "space-probe.tmp";

  private final Path directory;
  private final FileIO io;

  private volatile boolean closed;
  private volatile IOException writeFailure;

  /** The last write refused for lack of space, until a write or the space probe succeeds. */
  private volatile DiskFullException diskFull;

  private volatile long diskFullLoggedNanos = System.nanoTime() - DISK_FULL_LOG_NANOS;

  /** Serialises probes, which share one scratch file. */
  private final Object spaceProbe = new Object();

  private volatile Exception checkpointFailure;
  private volatile Exception compactionFailure;

  /** What the holder of the maintenance lock is doing, for monitoring; written under the lock. */
  private volatile boolean compacting;

  private volatile boolean checkpointing;

  StoreHealth(Path directory, FileIO io) {
    this.directory = directory;
    this.io = io;
  }

  CellarHealth snapshot() {
    return new CellarHealth(
        writeFailure, diskFull, checkpointFailure, compactionFailure, checkpointing, compacting);
  }

  void markClosed() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  void checkOpen() {
    if (closed) {
      throw new StoreClosedException("store " + directory + " is closed");
    }
  }

  /** Throws unless a write may go ahead now: open, no failed fsync, space on the disk. */
  void checkWritable() {
    checkOpen();
    IOException failure = writeFailure;
    if (failure != null) {
      throw new StoreIOException(
          "writes are disabled since an fsync failed ("
              + failure.getMessage()
              + "); reads go on; reopen the store to recover from what is on disk",
          failure);
    }
    DiskFullException full = diskFull;
    if (full != null) {
      try {
        probeSpace();
      } catch (IOException e) {
        throw new DiskFullException(full.getMessage(), e);
      }
    }
  }

  @Override
  public void writeFailed(IOException cause) {
    if (writeFailure == null) {
      writeFailure = cause;
      LOG.log(
          System.Logger.Level.ERROR, "fsync failed in " + directory + "; writes disabled", cause);
    }
  }

  IOException writeFailure() {
    return writeFailure;
  }

  DiskFullException diskFull() {
    return diskFull;
  }

  /** A write was refused for lack of space: logs the first of an episode (then one a minute). */
  void diskFull(DiskFullException e) {
    boolean first = diskFull == null;
    diskFull = e;
    long now = System.nanoTime();
    if (first && now - diskFullLoggedNanos > DISK_FULL_LOG_NANOS) {
      diskFullLoggedNanos = now;
      LOG.log(
          System.Logger.Level.WARNING,
          directory
              + ": disk full, writes refused until space returns; reads go on ("
              + e.getMessage()
              + ")");
    }
  }

  /**
   * Tells whether space for the log's next reservation has returned: reserves as much in a scratch
   * file (deleted at once; recovery deletes any {@code .tmp} a crash leaves) and, if that works,
   * clears {@link #diskFull()}. The log itself is not touched, so a probe cannot disturb appends.
   *
   * @throws IOException if there is still no space
   */
  void probeSpace() throws IOException {
    synchronized (spaceProbe) {
      if (diskFull == null) {
        return;
      }
      Path probe = directory.resolve(SPACE_PROBE);
      try (StoreFile file = io.open(probe, true)) {
        file.allocate(0, LogWriter.RESERVE_CHUNK + SegmentHeaderDescriptor.LENGTH);
      } finally {
        io.delete(probe);
      }
      diskFull = null;
      LOG.log(System.Logger.Level.INFO, directory + ": disk space returned; writes accepted again");
    }
  }

  void checkpointing(boolean running) {
    checkpointing = running;
  }

  void compacting(boolean running) {
    compacting = running;
  }

  void checkpointDone(Exception failure) {
    checkpointFailure = failure;
  }

  void compactionDone(Exception failure) {
    compactionFailure = failure;
  }
}
