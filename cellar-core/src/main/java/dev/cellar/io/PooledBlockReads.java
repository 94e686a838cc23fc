package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link BlockReads} by a small pool of threads, each doing one blocking read at a time: the
 * portable way to keep many reads in flight. The calling thread hands each block to the pool, reads
 * nothing itself, and parks until the last one is done. Kept to measure io_uring against ({@code
 * cellar bench io}), and for platforms without io_uring.
 */
public final class PooledBlockReads implements BlockReads {
  private static final ThreadLocal<MemorySegment> BUFFERS =
      ThreadLocal.withInitial(
          () -> Arena.ofAuto().allocate((long) MAX_BATCH * BLOCK_BYTES, BLOCK_BYTES));

  private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
  private final Thread[] workers;
  private final BlockReads serial = BlockReads.serial();
  private volatile boolean closed;

  /** A pool of {@code threads} readers: the reads in flight at most. */
  public PooledBlockReads(int threads) {
    workers = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      workers[i] = Thread.ofPlatform().daemon().name("cellar-block-read-" + i).start(this::work);
    }
  }

  private record Task(
      DirectReader file, long position, MemorySegment into, long[] done, int i, Batch batch) {}

  private static final class Batch {
    final AtomicInteger remaining;
    final Thread waiter = Thread.currentThread();

    Batch(int n) {
      remaining = new AtomicInteger(n);
    }
  }

  private void work() {
    while (true) {
      Task task;
      try {
        task = queue.take();
      } catch (InterruptedException e) {
        return; // closed
      }
      long read = -1;
      try {
        read = task.file.read(task.position, task.into);
      } catch (IOException | RuntimeException e) {
        // left out: the caller's own read reports it
      }
      task.done[task.i] = read;
      if (task.batch.remaining.decrementAndGet() == 0) {
        LockSupport.unpark(task.batch.waiter);
      }
    }
  }

  @Override
  public void readAll(DirectReader[] files, long[] positions, int n, Sink sink) {
    if (n > MAX_BATCH) {
      throw new IllegalArgumentException(n + " blocks: at most " + MAX_BATCH + " a batch");
    }
    if (closed) {
      serial.readAll(files, positions, n, sink);
      return;
    }
    MemorySegment buffers = BUFFERS.get();
    long[] done = new long[n];
    Batch batch = new Batch(n);
    for (int i = 0; i < n; i++) {
      queue.add(
          new Task(
              files[i],
              positions[i],
              buffers.asSlice((long) i * BLOCK_BYTES, BLOCK_BYTES),
              done,
              i,
              batch));
    }
    // Uninterruptibly: the buffers must outlive every read into them.
    while (batch.remaining.get() > 0) {
      LockSupport.park(this);
    }
    for (int i = 0; i < n; i++) {
      if (done[i] >= 0) {
        MemorySegment block = buffers.asSlice((long) i * BLOCK_BYTES, BLOCK_BYTES);
        if (done[i] < BLOCK_BYTES) {
          block.asSlice(done[i]).fill((byte) 0);
        }
        sink.block(i, block);
      }
    }
  }

  @Override
  public String name() {
    return "pool of " + workers.length;
  }

  @Override
  public void close() {
    closed = true;
    for (Thread t : workers) {
      t.interrupt();
    }
    // A batch whose tasks no worker will take now must not wait for them.
    Task task;
    while ((task = queue.poll()) != null) {
      task.done[task.i] = -1;
      if (task.batch.remaining.decrementAndGet() == 0) {
        LockSupport.unpark(task.batch.waiter);
      }
    }
  }
}
