package dev.cellar.server.net;

import dev.cellar.Cellar;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code appendfsync always} without blocking event loops. A loop appends a batch's writes, asks
 * for a ticket, and holds the batch's replies; one syncer thread fsyncs everything appended so far,
 * then hands the replies back to their loops. While it fsyncs, the loops keep parsing and appending
 * the next batches, so one fsync covers every client that wrote meanwhile (group commit across
 * connections and loops), and CPU work overlaps the disk wait. Redis, by contrast, fsyncs in its
 * only thread before writing replies.
 *
 * <p>Invariant: a reply is released only after an fsync that began after its writes were appended
 * (ticket t is completed by a sync started after {@code requested} reached t). A failed fsync
 * completes its tickets with the failure: their connections answer errors instead of the held
 * replies. The engine then refuses writes for good (it never retries a failed fsync), so later
 * tickets come only from writes that raced the failure, and their syncs fail too.
 */
final class DurabilityBarrier implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  /** A connection waiting for its ticket. */
  interface Waiter {
    EventExecutor loop();

    /** Runs on the waiter's loop: releases replies up to {@code completed}, or fails them. */
    void durable(long completed, RuntimeException failure);
  }

  private record Pending(Waiter waiter, long ticket) {}

  private final Cellar store;
  private final Thread syncer;
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

  /** Per loop thread: whether a task to wake the syncer is already queued for this pass. */
  private final ThreadLocal<boolean[]> wakeQueued = ThreadLocal.withInitial(() -> new boolean[1]);

  private final java.util.concurrent.atomic.AtomicLong requested =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile long completed;
  private volatile boolean closed;

  /** Failed syncs so far; only the first is logged with its stack trace. Syncer thread only. */
  private long failures;

  DurabilityBarrier(Cellar store) {
    this.store = store;
    this.syncer = Thread.ofPlatform().name("cellar-fsync").daemon().unstarted(this::run);
    syncer.start();
  }

  /**
   * Called on a loop after it appended writes; the waiter is told when they are durable.
   *
   * <p>The syncer is woken once per pass of the loop, by a task that runs after the pass has read
   * every ready connection, not once per connection: woken at the first connection's ticket, it
   * could start an fsync of that client's writes alone (on a shared core the woken thread may even
   * preempt the loop), leaving the rest of the pass to a second fsync; and each wake is a futex
   * call. Redis fsyncs in {@code beforeSleep}, after its pass over ready clients, for the same
   * reason. (Measured at P1 with 50 clients, it changed throughput by less than the noise.)
   */
  long request(Waiter waiter) {
    long ticket = requested.incrementAndGet();
    pending.add(new Pending(waiter, ticket));
    wakeSyncerAfterThisPass(waiter.loop());
    return ticket;
  }

  private void wakeSyncerAfterThisPass(EventExecutor loop) {
    if (!loop.inEventLoop()) {
      LockSupport.unpark(syncer);
      return;
    }
    // Confined to this loop's thread: set here, cleared by the task, which runs on the same thread.
    boolean[] queued = wakeQueued.get();
    if (queued[0]) {
      return;
    }
    queued[0] = true;
    try {
      loop.execute(
          () -> {
            queued[0] = false;
            LockSupport.unpark(syncer);
          });
    } catch (RejectedExecutionException shuttingDown) {
      queued[0] = false;
      LockSupport.unpark(syncer);
    }
  }

  long completed() {
    return completed;
  }

  private void run() {
    while (!closed) {
      long target = requested.get();
      if (target == completed) {
        LockSupport.park(this);
        continue;
      }
      RuntimeException failure = null;
      try {
        store.sync();
      } catch (RuntimeException e) {
        failure = e;
        if (failures++ == 0) {
          LOG.log(
              System.Logger.Level.ERROR,
              "fsync failed; replies to the writes it covered are errors",
              e);
        } else {
          LOG.log(
              System.Logger.Level.ERROR,
              "fsync failed again (" + failures + " times); replies are errors: " + e.getMessage());
        }
      }
      completed = target;
      release(target, failure);
    }
  }

  /** Wakes each loop once with all its connections whose tickets are done. */
  private void release(long target, RuntimeException failure) {
    Map<Executor, List<Waiter>> byLoop = new IdentityHashMap<>();
    for (Pending p; (p = pending.peek()) != null && p.ticket <= target; ) {
      pending.poll();
      byLoop.computeIfAbsent(p.waiter.loop(), l -> new ArrayList<>()).add(p.waiter);
    }
    byLoop.forEach(
        (loop, waiters) -> {
          try {
            loop.execute(
                () -> {
                  for (Waiter w : waiters) {
                    w.durable(target, failure);
                  }
                });
          } catch (RuntimeException rejected) {
            // The loop is shutting down; its connections are closing anyway.
          }
        });
  }

  /** Waits (briefly) until every requested ticket is completed and handed to its loop. */
  void drain() {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    while (completed < requested.get() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(100_000);
    }
  }

  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(syncer);
    try {
      syncer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
