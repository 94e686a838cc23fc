package dev.cellar.recovery;

import dev.cellar.log.Segment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Hands batches of replayed records from the thread that scans the log to the thread that applies
 * them to the index, so that replay uses two cores: one reads, CRC-checks and hashes records
 * sequentially, the other waits on the index's cache misses.
 *
 * <h2>Why this split</h2>
 *
 * The two halves cost about the same once the index's misses overlap (5M records: about 0.6 s of
 * CPU each, the scanning thread reading, CRC-checking and hashing records and touching their index
 * slots, the applying thread inserting them) and share nothing but the batch and the cache: the
 * scan writes the batch, {@link Recovery.Target#prepare} reads it there, and the apply half owns
 * the index. The alternatives were worse fits: applying shards in parallel needs every record read
 * and hashed by some thread before it knows its shard, and two threads scanning different segments
 * would share every shard and need its lock per record.
 *
 * <h2>Balance</h2>
 *
 * Touching a batch's index slots ahead of the apply ({@link Recovery.Target#prefetch}) is work that
 * either thread can do: done on the scanning thread it shortens the apply by about as much as it
 * lengthens the scan (5M records, compiled: opening thread 0.43 to 0.50 s of CPU without it, 0.57
 * to 0.75 s with it). So the scanning thread does it only when the applying thread is behind, when
 * a batch it submits finds others still waiting in the queue; otherwise it hurries on to the next
 * batch. The split then follows whichever thread the machine slows down (the JIT's threads share
 * the cores in a cold JVM).
 *
 * <h2>Order</h2>
 *
 * One applying thread takes batches in the order they were submitted, so records are applied in log
 * order exactly as without the pipeline. {@link #drain} returns once every submitted batch is
 * applied, which recovery calls at the end of each segment, before it trims or seals it.
 *
 * <h2>Concurrency</h2>
 *
 * A fixed ring of batches circulates through two queues: the scanning thread takes a free one,
 * fills it and submits it; the applying thread applies it and frees it. The queues' locks order
 * each batch's writes before its reads. A failure of the applying thread is kept and rethrown to
 * the scanning thread by the next {@link #drain}; until then the applier keeps freeing batches
 * unapplied, so the scanner never waits forever. With {@code parallel} false everything runs on the
 * calling thread, in the same order.
 */
final class ReplayPipeline implements AutoCloseable {
  /** Batches in flight at once: enough to absorb the two halves' jitter. */
  private static final int RING = 4;

  private final Recovery.Target target;
  private final BlockingQueue<ReplayBatch> free;
  private final BlockingQueue<ReplayBatch> full;
  private final Thread applier;
  private final ReplayBatch only;
  private volatile Throwable failure;

  /** The batch that stops the applying thread. */
  private final ReplayBatch stop = new ReplayBatch(1);

  ReplayPipeline(Recovery.Target target, int batchSize, boolean parallel) {
    this.target = target;
    if (!parallel) {
      free = null;
      full = null;
      applier = null;
      only = new ReplayBatch(batchSize);
      return;
    }
    only = null;
    free = new ArrayBlockingQueue<>(RING);
    full = new ArrayBlockingQueue<>(RING + 1);
    for (int i = 0; i < RING; i++) {
      free.add(new ReplayBatch(batchSize));
    }
    applier = Thread.ofPlatform().name("cellar-replay-apply").daemon().unstarted(this::applyLoop);
    applier.start();
  }

  /** An empty batch for the scanning thread to fill with records of {@code segment}. */
  ReplayBatch acquire(Segment segment) {
    ReplayBatch batch = only != null ? only : takeUninterruptibly(free);
    batch.start(segment);
    return batch;
  }

  /** Returns an acquired batch that is not to be applied, such as an empty one. */
  void release(ReplayBatch batch) {
    batch.start(null);
    if (only == null) {
      free.add(batch);
    }
  }

  /** Prepares {@code batch} on this thread and has it applied. */
  void submit(ReplayBatch batch) {
    target.prepare(batch.segment(), batch);
    if (only != null) {
      target.apply(batch.segment(), batch);
      return;
    }
    if (!full.isEmpty()) {
      // The applying thread is behind: take on part of its work here rather than wait for a batch.
      target.prefetch(batch.segment(), batch);
    }
    putUninterruptibly(full, batch);
  }

  /**
   * Waits until every submitted batch is applied; rethrows the applying thread's failure. The
   * caller holds no acquired batch.
   */
  void drain() {
    if (only == null) {
      ReplayBatch[] all = new ReplayBatch[RING];
      for (int i = 0; i < RING; i++) {
        all[i] = takeUninterruptibly(free);
      }
      for (ReplayBatch b : all) {
        free.add(b);
      }
    }
    Throwable f = failure;
    if (f instanceof RuntimeException e) {
      throw e;
    }
    if (f instanceof Error e) {
      throw e;
    }
  }

  private void applyLoop() {
    while (true) {
      ReplayBatch batch = takeUninterruptibly(full);
      if (batch == stop) {
        return;
      }
      try {
        if (failure == null) {
          target.apply(batch.segment(), batch);
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        batch.start(null);
        free.add(batch);
      }
    }
  }

  @Override
  public void close() {
    if (applier != null) {
      putUninterruptibly(full, stop);
      boolean interrupted = false;
      while (applier.isAlive()) {
        try {
          applier.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static ReplayBatch takeUninterruptibly(BlockingQueue<ReplayBatch> queue) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return queue.take();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void putUninterruptibly(BlockingQueue<ReplayBatch> queue, ReplayBatch batch) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          queue.put(batch);
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
