package dev.cellar.store;

import dev.cellar.DurabilityListener;
import dev.cellar.Fsync;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.log.LogWriter;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.io.SyncFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The one owner of the store's fsync policy: every fsync of the log, and every decision to make
 * one, is taken here.
 *
 * <h2>Three ways to wait, one group commit</h2>
 *
 * Under {@link Fsync#ALWAYS} a write waits for its fsync in the writer's thread ({@link
 * #beginWrite}, {@link #endWrite}); a caller that acknowledges writes itself (a server holding a
 * pipeline's replies, see {@link dev.cellar.CellarOptions#writesAwaitDurability}) registers a
 * listener instead ({@link #whenDurable}), and the sync thread waits for it; {@link #syncAll()}
 * serves close, checkpoints, sealing and the {@code everysec} agent. All of them go through one
 * {@link GroupCommit}, so one fsync covers every write appended while the previous one ran, however
 * its writer waits. (Before this class, a server under {@code always} ran the engine with fsync off
 * and fsynced through a barrier of its own, and its HTTP writes called {@code sync()} each: three
 * implementations of one policy, and the engine unaware of it.)
 *
 * <h2>Threads</h2>
 *
 * The sync thread exists only under {@code always}; it drains the listeners registered so far,
 * waits once for the highest position among them, and tells each. Listeners run on it and must not
 * block. The {@code everysec} flusher is a thread of its own ({@link FlushAgent}).
 *
 * <h2>Failure</h2>
 *
 * A failed fsync is reported to {@link StoreHealth}, which refuses writes until reopen, and every
 * waiter and listener it covered is told; later ones fail too (see {@link GroupCommit}).
 */
final class Durability {
  private record Pending(long seq, DurabilityListener listener) {}

  private final Fsync policy;
  private final boolean writesWait;
  private final LogWriter log;
  private final GroupCommit commit;
  private final StoreHealth health;
  private final String name;
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
  private FlushAgent flusher;
  private AgentThread syncer;

  Durability(
      Fsync policy,
      boolean writesWait,
      LogWriter log,
      StoreHealth health,
      long durableSeq,
      String name) {
    this.policy = policy;
    this.writesWait = writesWait;
    this.log = log;
    this.health = health;
    this.name = name;
    this.commit = new GroupCommit(log, health, durableSeq);
  }

  /** Starts the policy's threads: the flusher under {@code everysec}, the syncer under always. */
  void start() {
    if (policy == Fsync.EVERYSEC) {
      flusher = new FlushAgent(this, name);
      flusher.start();
    } else if (policy == Fsync.ALWAYS) {
      syncer = new AgentThread("cellar-sync-" + name, this::runSyncer);
      syncer.start();
    }
  }

  /**
   * Before a write's append; returns whether the writer must call {@link #awaitAppended()} after it
   * (and {@link #endWrite} in any case).
   */
  boolean beginWrite() {
    if (writesWait) {
      commit.enter(); // lets group commit gather writers that are still appending
    }
    return writesWait;
  }

  /** After the write that {@link #beginWrite} began, however it ended. */
  void endWrite(boolean waited) {
    if (waited) {
      commit.exit();
    }
  }

  /** Waits until everything appended so far is durable: a write's wait under {@code always}. */
  void awaitAppended() {
    try {
      commit.awaitDurable(log.appendedSeq());
    } catch (IOException e) {
      throw new StoreIOException(
          "fsync failed; this write is not acknowledged and writes are disabled until the store is"
              + " reopened: "
              + e.getMessage(),
          e);
    }
  }

  /** See {@link dev.cellar.Cellar#whenDurable}. */
  void whenDurable(DurabilityListener listener) {
    if (syncer == null) {
      listener.durable(null);
      return;
    }
    pending.add(new Pending(log.appendedSeq(), listener));
    syncer.wake();
  }

  private void runSyncer() {
    List<Pending> batch = new ArrayList<>();
    while (syncer.running() || !pending.isEmpty()) {
      if (pending.isEmpty()) {
        LockSupport.park(this);
        continue;
      }
      long target = 0;
      for (Pending p; (p = pending.poll()) != null; ) {
        batch.add(p);
        target = Math.max(target, p.seq());
      }
      RuntimeException failure = null;
      try {
        commit.awaitDurable(target);
      } catch (IOException e) {
        failure =
            new StoreIOException(
                "fsync failed; these writes are not acknowledged and writes are disabled until the"
                    + " store is reopened: "
                    + e.getMessage(),
                e);
      }
      for (Pending p : batch) {
        try {
          p.listener().durable(failure);
        } catch (RuntimeException e) {
          // A listener's own failure is its caller's business; the others must still be told.
        }
      }
      batch.clear();
    }
  }

  /** Forces everything appended so far to disk (close, checkpoints, sealing, everysec, sync()). */
  void syncAll() {
    try {
      commit.syncAll();
    } catch (IOException e) {
      throw new StoreIOException(
          "fsync failed; writes are disabled until the store is reopened: " + e.getMessage(), e);
    }
  }

  /** {@link #syncAll()} that throws the I/O failure itself (close). */
  void syncAllOrThrow() throws IOException {
    commit.syncAll();
  }

  /**
   * Seals segments the log writer has moved past (fsync, final header, truncate). Their records are
   * first made durable through group commit, so that a failed fsync of them reaches the writers
   * waiting on it; a failed fsync in the seal itself disables writes just the same. The caller
   * holds the maintenance lock.
   */
  void sealFullSegments(SegmentTable segments, MaintenanceLock lock) throws IOException {
    assert lock.heldByCurrentThread() : "segments are sealed under the maintenance lock";
    boolean synced = false;
    for (Segment s : segments.all()) {
      if (s.state() == Segment.State.FULL) {
        if (!synced) {
          syncAll();
          synced = true;
        }
        try {
          s.seal();
        } catch (SyncFailedException e) {
          health.writeFailed(e);
          commit.fail(e);
          throw e;
        }
        log.sealed(s);
      }
    }
  }

  long appendedSeq() {
    return log.appendedSeq();
  }

  long durableSeq() {
    return commit.durableSeq();
  }

  long fsyncs() {
    return commit.fsyncs();
  }

  long fsyncNanos() {
    return commit.fsyncNanos();
  }

  /**
   * Stops the policy's threads. The syncer first tells every listener still waiting (after a last
   * fsync, or with the reason there can be none); called before the store's closing sync.
   */
  void stop(String directory) {
    if (flusher != null) {
      flusher.stop();
    }
    if (syncer != null) {
      syncer.stop();
    }
    StoreClosedException closed = new StoreClosedException("store " + directory + " is closed");
    for (Pending p; (p = pending.poll()) != null; ) {
      p.listener().durable(closed);
    }
  }
}
