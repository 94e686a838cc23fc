package dev.cellar.server.net;

import dev.cellar.Cellar;
import dev.cellar.server.db.Databases;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Replies held until the writes before them are durable, when the engine says writes are not
 * durable on return ({@link Cellar#durableOnReturn()}: {@code appendfsync always}). The engine
 * decides and does the fsync ({@link Cellar#whenDurable}, on its group commit); this class only
 * holds replies and hands them back to their event loops, without blocking a loop.
 *
 * <p>A loop appends a batch's writes, asks for a ticket, and holds the batch's replies. After the
 * loop's pass over its ready connections, one task asks the engine once for everything ticketed so
 * far; while the engine fsyncs, the loops keep parsing and appending the next batches, so one fsync
 * covers every client that wrote meanwhile (group commit across connections and loops), and CPU
 * work overlaps the disk wait. Redis, by contrast, fsyncs in its only thread before writing
 * replies.
 *
 * <p>Invariant: a reply is released only after the engine reports durable everything appended
 * before a request that read a ticket counter at or above the reply's ticket. Tickets are taken
 * after their writes are appended, so those writes are covered. A failed fsync completes its
 * tickets with the failure: their connections answer errors instead of the held replies.
 */
final class DurableReplies {
  /** A connection waiting for its ticket. */
  interface Waiter {
    /** The thread that serves the connection, as an executor (an event loop, an agent). */
    Executor loop();

    /** Whether the caller is that thread. */
    boolean inLoop();

    /** Runs on the waiter's loop: releases replies up to {@code completed}, or fails them. */
    void durable(long completed, RuntimeException failure);
  }

  private record Pending(Waiter waiter, long ticket) {}

  private final Databases databases;
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

  /** Per loop thread: whether a task asking the engine is already queued for this pass. */
  private final ThreadLocal<boolean[]> askQueued = ThreadLocal.withInitial(() -> new boolean[1]);

  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();

  DurableReplies(Databases databases) {
    this.databases = databases;
  }

  /**
   * Called on a loop after it appended writes; the waiter is told when they are durable.
   *
   * <p>The engine is asked once per pass of the loop, by a task that runs after the pass has read
   * every ready connection, not once per connection: asked at the first connection's ticket, it
   * could start an fsync of that client's writes alone, leaving the rest of the pass to a second
   * fsync. Redis fsyncs in {@code beforeSleep}, after its pass over ready clients, for the same
   * reason.
   */
  long request(Waiter waiter) {
    long ticket = requested.incrementAndGet();
    pending.add(new Pending(waiter, ticket));
    askAfterThisPass(waiter);
    return ticket;
  }

  private void askAfterThisPass(Waiter waiter) {
    Executor loop = waiter.loop();
    if (!waiter.inLoop()) {
      ask();
      return;
    }
    // Confined to this loop's thread: set here, cleared by the task, which runs on the same thread.
    boolean[] queued = askQueued.get();
    if (queued[0]) {
      return;
    }
    queued[0] = true;
    try {
      loop.execute(
          () -> {
            queued[0] = false;
            ask();
          });
    } catch (RejectedExecutionException shuttingDown) {
      queued[0] = false;
      ask();
    }
  }

  /** Asks the engine about every ticket taken so far (read first: their writes are appended). */
  private void ask() {
    long target = requested.get();
    try {
      databases.whenDurable(failure -> release(target, failure)); // every open database's writes
    } catch (RuntimeException closed) {
      release(target, closed);
    }
  }

  /** Wakes each loop once with all its connections whose tickets are done. */
  private synchronized void release(long target, RuntimeException failure) {
    completed.accumulateAndGet(target, Math::max);
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

  /** The error each held reply becomes when the fsync covering it failed (every transport's). */
  static String refusal(RuntimeException failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return "ERR fsync failed ("
        + cause.getMessage()
        + "): this command's reply is withheld and its write,"
        + " if any, is not acknowledged (it may or may not be on disk); writes are refused until the server is"
        + " restarted, reads go on";
  }

  /** Waits (briefly) until every requested ticket is completed and handed to its loop. */
  void drain() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (completed.get() < requested.get() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(100_000);
    }
  }
}
