package dev.cellar.platform;

import dev.cellar.io.BlockReads;
import dev.cellar.io.DirectReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link BlockReads} through io_uring, called through FFM (no JNI, no liburing): a batch's reads
 * are written into the submission ring and submitted, and waited for, with one {@code
 * io_uring_enter}. With {@code O_DIRECT} the reads go to the device at once and in parallel, and
 * the calling thread makes one system call for the whole batch where a pool of threads doing {@code
 * pread} would cost a hand-off and a wake-up a block (measured against each other by {@code cellar
 * bench io}; docs/direct-io.md).
 *
 * <h2>Rings</h2>
 *
 * A ring is used by one thread at a time, taken from a pool of idle rings and given back after the
 * batch, so a store read by many threads (virtual threads too) has as many rings as batches in
 * flight at once, at most {@link #MAX_RINGS}; a batch that finds none reads serially. Each ring has
 * its own {@link BlockReads#MAX_BATCH} buffers: a batch returns only once every read it submitted
 * has completed, so no buffer is ever reused, or freed, under a read the kernel has in flight. A
 * ring whose {@code io_uring_enter} fails in a way that leaves reads unaccounted for is abandoned
 * with its buffers still allocated, for the same reason.
 *
 * <h2>Memory ordering</h2>
 *
 * The kernel reads the submission ring's tail, and writes the completion ring's tail, concurrently
 * with us: the tail we publish is a release store (the entries before it are visible first), and
 * the completion tail is read with acquire (the entries before it are read after it).
 */
public final class UringBlockReads implements BlockReads {
  private static final int MAX_RINGS = 32;

  private static final long SYS_IO_URING_SETUP = 425;
  private static final long SYS_IO_URING_ENTER = 426;
  private static final int IORING_OP_READ = 22;
  private static final int IORING_ENTER_GETEVENTS = 1;
  private static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
  private static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
  private static final int IORING_FEAT_SINGLE_MMAP = 1;
  private static final long IORING_OFF_SQ_RING = 0;
  private static final long IORING_OFF_CQ_RING = 0x8000000L;
  private static final long IORING_OFF_SQES = 0x10000000L;
  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;
  private static final int EINTR = 4;
  private static final int EAGAIN = 11;
  private static final int EBUSY = 16;

  private static final int SQE_BYTES = 64;
  private static final int CQE_BYTES = 16;
  private static final int PARAMS_BYTES = 120;

  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

  private static final MethodHandle SETUP =
      Libc.function(
          "syscall",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.ADDRESS),
          Linker.Option.firstVariadicArg(1),
          Linker.Option.captureCallState("errno"));
  private static final MethodHandle ENTER =
      Libc.function(
          "syscall",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG),
          Linker.Option.firstVariadicArg(1),
          Linker.Option.captureCallState("errno"));
  // mmap, munmap and close are the ones MemoryAdvice and NativeFileOps link, on first use.
  private static final MethodHandle MMAP = MemoryAdvice.Mmap.HANDLE;
  private static final MethodHandle MUNMAP = MemoryAdvice.Munmap.HANDLE;

  private final ArrayBlockingQueue<Ring> idle = new ArrayBlockingQueue<>(MAX_RINGS);
  private final AtomicInteger rings = new AtomicInteger();
  private final BlockReads serial = BlockReads.serial();
  private volatile boolean closed;

  private UringBlockReads(Ring first) {
    rings.set(1);
    idle.add(first);
  }

  /**
   * io_uring reads, or null where there are none: not Linux, no native access for the engine, or a
   * kernel (or a container's seccomp profile) that refuses {@code io_uring_setup}.
   */
  public static BlockReads open() {
    if (SETUP == null || ENTER == null || MMAP == null || MUNMAP == null) {
      return null;
    }
    Ring ring = Ring.create();
    return ring == null ? null : new UringBlockReads(ring);
  }

  @Override
  public void readAll(DirectReader[] files, long[] positions, int n, Sink sink) {
    if (n > MAX_BATCH) {
      throw new IllegalArgumentException(n + " blocks: at most " + MAX_BATCH + " a batch");
    }
    Ring ring = closed ? null : take();
    if (ring == null) {
      serial.readAll(files, positions, n, sink);
      return;
    }
    boolean usable = false;
    try {
      usable = ring.readAll(files, positions, n, sink);
    } finally {
      giveBack(ring, usable);
    }
  }

  private Ring take() {
    Ring ring = idle.poll();
    if (ring != null) {
      return ring;
    }
    int n;
    do {
      n = rings.get();
      if (n >= MAX_RINGS) {
        return null;
      }
    } while (!rings.compareAndSet(n, n + 1));
    ring = Ring.create();
    if (ring == null) {
      rings.decrementAndGet();
    }
    return ring;
  }

  private void giveBack(Ring ring, boolean usable) {
    if (!usable) {
      ring.abandon();
      rings.decrementAndGet();
      return;
    }
    idle.add(ring);
    if (closed && idle.remove(ring)) {
      ring.close();
    }
  }

  @Override
  public String name() {
    return "io_uring";
  }

  @Override
  public void close() {
    closed = true;
    Ring ring;
    while ((ring = idle.poll()) != null) {
      ring.close();
    }
  }

  /** One io_uring instance, its mappings and its buffers. */
  private static final class Ring {
    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final MemorySegment sq;
    private final MemorySegment cq;
    private final MemorySegment sqes;
    private final int sqTailOffset;
    private final int sqMask;
    private final int cqHeadOffset;
    private final int cqTailOffset;
    private final int cqMask;
    private final int cqesOffset;
    private final MemorySegment state;
    private final MemorySegment buffers;
    private final MemorySegment[] blocks = new MemorySegment[MAX_BATCH];
    private final DirectFile[] held = new DirectFile[MAX_BATCH];
    private final int[] results = new int[MAX_BATCH];
    private int sqTail;
    private int cqHead;

    private Ring(
        int fd, MemorySegment params, MemorySegment sq, MemorySegment cq, MemorySegment sqes)
        throws IOException {
      this.fd = fd;
      this.sq = sq;
      this.cq = cq;
      this.sqes = sqes;
      int sqEntries = params.get(ValueLayout.JAVA_INT, 0);
      sqTailOffset = params.get(ValueLayout.JAVA_INT, 44);
      sqMask = sq.get(ValueLayout.JAVA_INT, params.get(ValueLayout.JAVA_INT, 48));
      int sqArray = params.get(ValueLayout.JAVA_INT, 64);
      cqHeadOffset = params.get(ValueLayout.JAVA_INT, 80);
      cqTailOffset = params.get(ValueLayout.JAVA_INT, 84);
      cqMask = cq.get(ValueLayout.JAVA_INT, params.get(ValueLayout.JAVA_INT, 88));
      cqesOffset = params.get(ValueLayout.JAVA_INT, 100);
      sqTail = sq.get(ValueLayout.JAVA_INT, sqTailOffset);
      cqHead = cq.get(ValueLayout.JAVA_INT, cqHeadOffset);
      // Entry i of the ring is always submission entry i: the indirection array never changes.
      for (int i = 0; i < sqEntries; i++) {
        sq.set(ValueLayout.JAVA_INT, sqArray + 4L * i, i);
      }
      state = arena.allocate(Libc.CallState.LAYOUT);
      buffers = arena.allocate((long) MAX_BATCH * BLOCK_BYTES, BLOCK_BYTES);
      for (int i = 0; i < MAX_BATCH; i++) {
        blocks[i] = buffers.asSlice((long) i * BLOCK_BYTES, BLOCK_BYTES);
      }
    }

    static Ring create() {
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment params = scratch.allocate(PARAMS_BYTES, 8);
        MemorySegment state = scratch.allocate(Libc.CallState.LAYOUT);
        long fd = setup(params, state, IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN);
        if (fd < 0) {
          params.fill((byte) 0);
          fd = setup(params, state, 0); // a kernel older than 5.19 knows neither flag
        }
        if (fd < 0) {
          return null;
        }
        int sqEntries = params.get(ValueLayout.JAVA_INT, 0);
        int cqEntries = params.get(ValueLayout.JAVA_INT, 4);
        int features = params.get(ValueLayout.JAVA_INT, 20);
        long sqBytes = params.get(ValueLayout.JAVA_INT, 64) + 4L * sqEntries;
        long cqBytes = params.get(ValueLayout.JAVA_INT, 100) + (long) CQE_BYTES * cqEntries;
        MemorySegment sq;
        MemorySegment cq;
        if ((features & IORING_FEAT_SINGLE_MMAP) != 0) {
          sq = map((int) fd, Math.max(sqBytes, cqBytes), IORING_OFF_SQ_RING);
          cq = sq;
        } else {
          sq = map((int) fd, sqBytes, IORING_OFF_SQ_RING);
          cq = sq == null ? null : map((int) fd, cqBytes, IORING_OFF_CQ_RING);
        }
        MemorySegment sqes =
            cq == null ? null : map((int) fd, (long) SQE_BYTES * sqEntries, IORING_OFF_SQES);
        if (sqes == null) {
          unmap(sq);
          if (cq != sq) {
            unmap(cq);
          }
          NativeFileOps.close((int) fd);
          return null;
        }
        return new Ring((int) fd, params, sq, cq, sqes);
      } catch (Throwable t) {
        return null;
      }
    }

    private static long setup(MemorySegment params, MemorySegment state, int flags)
        throws Throwable {
      params.set(ValueLayout.JAVA_INT, 8, flags);
      return (long) SETUP.invokeExact(state, SYS_IO_URING_SETUP, (long) MAX_BATCH, params);
    }

    private static MemorySegment map(int fd, long bytes, long offset) throws Throwable {
      MemorySegment at =
          (MemorySegment)
              MMAP.invokeExact(
                  MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_SHARED_POPULATE, fd, offset);
      if (at.address() == -1L || at.address() == 0) {
        return null;
      }
      return at.reinterpret(bytes);
    }

    /**
     * Reads the batch; returns false if the ring must not be used again (reads may be left in
     * flight into its buffers).
     */
    boolean readAll(DirectReader[] files, long[] positions, int n, Sink sink) {
      int submitted = 0;
      for (int i = 0; i < n; i++) {
        held[i] = null;
        if (files[i] instanceof DirectFile file && file.tryAcquire()) {
          held[i] = file;
          results[i] = Integer.MIN_VALUE;
          long sqe = (long) (sqTail & sqMask) * SQE_BYTES;
          sqes.asSlice(sqe, SQE_BYTES).fill((byte) 0);
          sqes.set(ValueLayout.JAVA_BYTE, sqe, (byte) IORING_OP_READ);
          sqes.set(ValueLayout.JAVA_INT, sqe + 4, file.descriptor());
          sqes.set(ValueLayout.JAVA_LONG, sqe + 8, positions[i]);
          sqes.set(ValueLayout.JAVA_LONG, sqe + 16, blocks[i].address());
          sqes.set(ValueLayout.JAVA_INT, sqe + 24, BLOCK_BYTES);
          sqes.set(ValueLayout.JAVA_LONG, sqe + 32, i);
          sqTail++;
          submitted++;
        }
      }
      boolean usable = true;
      if (submitted > 0) {
        INT.setRelease(sq, (long) sqTailOffset, sqTail);
        usable = await(submitted);
      }
      try {
        for (int i = 0; i < n; i++) {
          DirectFile file = held[i];
          if (file == null) {
            if (!(files[i] instanceof DirectFile)) {
              readOne(files[i], positions[i], blocks[i], 0, sink, i); // a file system's substitute
            }
            continue;
          }
          int res = results[i];
          if (usable && res >= 0) {
            readOne(file, positions[i], blocks[i], res, sink, i);
          }
        }
      } finally {
        for (int i = 0; i < n; i++) {
          if (held[i] != null) {
            held[i].releaseRead();
            held[i] = null;
          }
        }
      }
      return usable;
    }

    /**
     * Completes block {@code i}, {@code done} bytes of which the ring read: a short read that is
     * not at the end of the file is finished with {@code pread}; past the end is zero.
     */
    private static void readOne(
        DirectReader file, long position, MemorySegment block, int done, Sink sink, int i) {
      try {
        long read = done;
        if (read < BLOCK_BYTES) {
          read += file.read(position + read, block.asSlice(read));
        }
        if (read < BLOCK_BYTES) {
          block.asSlice(read).fill((byte) 0);
        }
      } catch (IOException | IllegalStateException e) {
        return; // the caller's own read reports it
      }
      sink.block(i, block);
    }

    /** Submits what the tail holds and waits for {@code submitted} completions. */
    private boolean await(int submitted) {
      int toSubmit = submitted;
      int completed = 0;
      int failures = 0;
      while (completed < submitted) {
        long r;
        try {
          r =
              (long)
                  ENTER.invokeExact(
                      state,
                      SYS_IO_URING_ENTER,
                      (long) fd,
                      (long) toSubmit,
                      (long) (submitted - completed),
                      (long) IORING_ENTER_GETEVENTS,
                      MemorySegment.NULL,
                      0L);
        } catch (Throwable t) {
          return false;
        }
        if (r < 0) {
          int errno = Libc.CallState.errno(state);
          if ((errno != EINTR && errno != EAGAIN && errno != EBUSY) || ++failures > 1000) {
            return false;
          }
        } else {
          toSubmit -= (int) Math.min(toSubmit, r);
        }
        int head = cqHead;
        int tail = (int) INT.getAcquire(cq, (long) cqTailOffset);
        while (head != tail) {
          long cqe = cqesOffset + (long) (head & cqMask) * CQE_BYTES;
          int i = (int) cq.get(ValueLayout.JAVA_LONG, cqe);
          results[i] = cq.get(ValueLayout.JAVA_INT, cqe + 8);
          head++;
          completed++;
        }
        cqHead = head;
        INT.setRelease(cq, (long) cqHeadOffset, head);
      }
      return true;
    }

    void close() {
      unmap(sqes);
      unmap(sq);
      if (cq != sq) {
        unmap(cq);
      }
      NativeFileOps.close(fd);
      arena.close();
    }

    /**
     * Closes the ring but keeps its buffers allocated: reads may still be in flight into them.
     * Happens only when {@code io_uring_enter} fails unexpectedly.
     */
    void abandon() {
      NativeFileOps.close(fd);
    }

    private static void unmap(MemorySegment mapping) {
      if (mapping == null) {
        return;
      }
      try {
        int ignored = (int) MUNMAP.invokeExact(mapping, mapping.byteSize());
      } catch (Throwable t) {
        // nothing to do: the mapping goes with the process
      }
    }
  }
}
