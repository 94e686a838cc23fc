package dev.cellar.store;

import dev.cellar.CellarOptions;
import dev.cellar.DiskFullException;
import dev.cellar.RecoveryReport;
import dev.cellar.StoreIOException;
import dev.cellar.StoreSnapshot;
import dev.cellar.compress.Dictionaries;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.FileIO;
import dev.cellar.log.LogWriter;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The store's upkeep: sealing full segments, checkpoints and compaction passes, each under the
 * {@link MaintenanceLock} (which also orders them against close). The agents ({@link
 * MaintenanceAgent}, {@link IdleCompactor}) decide when; the application can ask for a checkpoint
 * or a pass itself. Segments a pass replaces are deleted after the next durable checkpoint ({@link
 * ObsoleteSegments}).
 */
final class Maintenance {
  private final Path directory;
  private final FileIO io;
  private final CellarOptions options;
  private final Keyspace keyspace;
  private final SegmentTable segments;
  private final AtomicLong segmentIds;
  private final LogWriter log;
  private final Durability durability;
  private final StoreHealth health;
  private final ObsoleteSegments obsolete;
  private final RecoveryReport recoveryReport;
  private final MaintenanceLock lock = new MaintenanceLock();
  private final MaintenanceCounters counters;
  private final AtomicLong checkpointSequence;
  private volatile long checkpointedSeq = -1;

  private final Dictionaries dictionaries;

  private final CheckpointedPages checkpointedPages;

  Maintenance(
      Path directory,
      CellarOptions options,
      Keyspace keyspace,
      SegmentTable segments,
      AtomicLong segmentIds,
      LogWriter log,
      Durability durability,
      StoreHealth health,
      ObsoleteSegments obsolete,
      MaintenanceCounters counters,
      long checkpointSequence,
      RecoveryReport recoveryReport,
      Dictionaries dictionaries) {
    this.dictionaries = dictionaries;
    this.directory = directory;
    this.io = options.fileIO();
    this.options = options;
    this.keyspace = keyspace;
    this.segments = segments;
    this.segmentIds = segmentIds;
    this.log = log;
    this.durability = durability;
    this.health = health;
    this.obsolete = obsolete;
    this.counters = counters;
    this.checkpointSequence = new AtomicLong(checkpointSequence);
    this.recoveryReport = recoveryReport;
    this.checkpointedPages =
        new CheckpointedPages(
            options.io() == dev.cellar.IoMode.BUFFERED
                && dev.cellar.platform.IoSwitches.CHECKPOINT_DROP,
            dev.cellar.platform.MemoryPressure::tight);
  }

  /** Segments the page cache was told to drop after checkpoints, since open (tests). */
  long checkpointDroppedSegments() {
    return checkpointedPages.dropped();
  }

  MaintenanceLock lock() {
    return lock;
  }

  /**
   * Writes a checkpoint if anything changed since the last one (or if {@code force}); {@code
   * locksHeld} when the caller holds every shard's write lock (close).
   */
  void writeCheckpoint(boolean force, boolean locksHeld) throws IOException {
    lock.hold(
        () -> {
          long seq = log.appendedSeq();
          if (!force && seq == checkpointedSeq && obsolete.count() == 0) {
            return;
          }
          health.checkpointing(true);
          try {
            assert lock.heldByCurrentThread();
            List<Segment> deletable = obsolete.snapshot();
            try {
              new CheckpointTask(
                      io,
                      directory,
                      keyspace.shards(),
                      segments,
                      log,
                      locksHeld,
                      durability::syncAll)
                  .write(checkpointSequence.incrementAndGet());
            } catch (IOException | RuntimeException e) {
              health.checkpointDone(e);
              throw e;
            }
            health.checkpointDone(null);
            checkpointedPages.afterCheckpoint(segments.all());
            checkpointedSeq = seq;
            counters.checkpoints.increment();
            obsolete.delete(deletable);
          } finally {
            health.checkpointing(false);
          }
        });
  }

  /**
   * Writes a checkpoint, then a snapshot of the store into {@code target} (see {@link
   * SnapshotTask}), holding the maintenance lock throughout so that the files do not change under
   * it.
   */
  StoreSnapshot snapshot(Path target) throws IOException {
    return lock.hold(
        () -> {
          writeCheckpoint(true, false);
          long lastSeq = log.appendedSeq();
          return new SnapshotTask(directory, segments, target)
              .write(checkpointSequence.get(), lastSeq);
        });
  }

  /**
   * The checkpoint on the way out. Everything is synced by now, so on a full disk it is only an
   * optimisation lost (the next open replays the log instead): said in the log, not thrown.
   */
  void closingCheckpoint() throws IOException {
    try {
      writeCheckpoint(true, true);
    } catch (IOException e) {
      if (!DiskFullException.isNoSpace(e)) {
        throw e;
      }
      System.getLogger("dev.cellar")
          .log(
              System.Logger.Level.WARNING,
              directory
                  + ": closed without a checkpoint, the disk is full ("
                  + e.getMessage()
                  + "); every write is synced, and the next open replays the log");
    }
  }

  /** Copies compaction passes abandoned since open (their keys changed while they were made). */
  long abandonedCopies() {
    return counters.abandonedCopies.sum();
  }

  /** One pass at full speed (the application's {@code compact()}). */
  long compactNow() throws IOException {
    return runCompaction(Compactor.Pass.NOW, null);
  }

  /**
   * One throttled pass for the maintenance thread: it gives up, undoing its work, once {@code
   * stopping} says so, so that close() does not wait out a throttled pass; returns bytes reclaimed,
   * or {@link Compactor#YIELDED} if it gave up.
   */
  long compactInBackground(BooleanSupplier stopping) throws IOException {
    return runCompaction(Compactor.Pass.BACKGROUND, stopping);
  }

  /**
   * One throttled pass for the low-priority thread: it gives up, undoing its work, once the log
   * reaches {@link CellarOptions#idleCompactionLimit()} (a pass at normal priority takes over),
   * anyone waits for the maintenance lock, or {@code stopping} says so; returns bytes reclaimed, or
   * {@link Compactor#YIELDED} if it gave up.
   */
  long compactWhileIdle(BooleanSupplier stopping) throws IOException {
    return runCompaction(
        Compactor.Pass.IDLE, lock.yieldWhen(() -> stopping.getAsBoolean() || compactionUrgent()));
  }

  /**
   * The low-priority thread's pass once writes have stopped ({@link Compactor.Pass#AT_REST}), when
   * the log holds at least {@link #restGarbageFloor()} of garbage. The active segment is never a
   * victim, and after a run of overwrites it holds their garbage, so it is left first (sealed by
   * the pass) when that much of it, and at least the garbage ratio, is dead. Yields to anyone
   * waiting for the maintenance lock, and once {@code stopping} says so; returns bytes reclaimed (0
   * if nothing was worth a pass), or {@link Compactor#YIELDED}.
   */
  long compactAtRest(BooleanSupplier stopping) throws IOException {
    if (stopping.getAsBoolean()) {
      return Compactor.YIELDED;
    }
    long now = System.currentTimeMillis();
    long floor = restGarbageFloor();
    if (Compactor.logFigures(segments, now).garbageBytes() < floor) {
      return 0;
    }
    double ratio = options.compactionGarbageRatio();
    log.rollIf(
        active -> {
          long dead = active.garbageBytes(now);
          return dead >= floor && dead >= ratio * (active.end() - active.dataStart());
        });
    // Not on urgency, unlike compactWhileIdle: the maintenance thread's urgent pass cannot take
    // the active segment, so a log whose garbage is there would stay urgent, and this never run.
    // An urgent pass that wants the lock meanwhile makes this one yield all the same.
    return runCompaction(Compactor.Pass.AT_REST, lock.yieldWhen(stopping));
  }

  /**
   * Garbage worth a pass at rest: a sixteenth of a segment (4 MiB by default), so that a store at
   * rest after a few overwrites does not roll its active segment for them.
   */
  private long restGarbageFloor() {
    return Math.max(1, options.segmentBytes() / 16);
  }

  /** The highest seq appended: the low-priority thread tells the log at rest by it. */
  long appendedSeq() {
    return log.appendedSeq();
  }

  /**
   * Whether background compaction should compete with the application for CPU: the log has reached
   * {@link CellarOptions#idleCompactionLimit()} times its live data (or the limit is not above the
   * point where compaction starts).
   */
  boolean compactionUrgent() {
    return options.idleCompactionLimit() <= options.compactionSpaceAmplification()
        || Compactor.logFigures(segments, System.currentTimeMillis()).amplification()
            >= options.idleCompactionLimit();
  }

  /**
   * One pass; returns bytes reclaimed, or {@link Compactor#YIELDED} when it gave up (a yield is not
   * a failure).
   *
   * @param pass who runs it (its pace, its victims and whether it yields to everyone else)
   * @param yieldWhen asked during the pass; when true, the pass gives up (null: never)
   */
  private long runCompaction(Compactor.Pass pass, BooleanSupplier yieldWhen) throws IOException {
    IOException failed = health.writeFailure();
    if (failed != null) {
      // After a failed fsync nothing more is written until reopen: a pass would write segments
      // and publish them as if the log they were copied from were safe on disk.
      throw new StoreIOException(
          "compaction refused: writes are disabled since an fsync failed ("
              + failed.getMessage()
              + "); reopen the store to recover from what is on disk",
          failed);
    }
    KeyHasher hasher = keyspace.hasher();
    try {
      long reclaimed =
          new Compactor(
                  lock,
                  this::sealFullSegments,
                  obsolete,
                  health,
                  counters,
                  io,
                  directory,
                  keyspace.shards(),
                  hasher,
                  segments,
                  segmentIds,
                  options,
                  dictionaries,
                  pass,
                  yieldWhen)
              .runOnce();
      health.compactionDone(null);
      return reclaimed;
    } catch (CompactionYieldedException yielded) {
      return Compactor.YIELDED;
    } catch (IOException | RuntimeException e) {
      health.compactionDone(e);
      throw e;
    }
  }

  /** Seals the segments the log writer has moved past; see {@link Durability#sealFullSegments}. */
  void sealFullSegments() throws IOException {
    lock.hold(() -> durability.sealFullSegments(segments, lock));
  }

  /** The agent's sealing: left to a low-priority pass that holds the lock (it seals first). */
  void sealFullSegmentsUnlessIdlePass() throws IOException {
    lock.holdUnlessIdlePass(() -> durability.sealFullSegments(segments, lock));
  }

  Path directory() {
    return directory;
  }

  CellarOptions options() {
    return options;
  }

  RecoveryReport recoveryReport() {
    return recoveryReport;
  }

  long indexBytes() {
    return keyspace.indexBytes();
  }

  long obsoleteBytes() {
    return obsolete.bytes();
  }

  IOException writeFailure() {
    return health.writeFailure();
  }

  DiskFullException diskFull() {
    return health.diskFull();
  }

  void probeSpace() throws IOException {
    health.probeSpace();
  }
}
