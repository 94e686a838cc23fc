package dev.cellar.ipc;

import static dev.cellar.ipc.IpcDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A single-producer single-consumer ring of frames in shared memory: one process writes frames,
 * another reads them, with no lock and no system call while both are busy.
 *
 * <h2>Layout and positions</h2>
 *
 * A control block ({@link IpcDescriptor}: tail, head and the producer's doorbell, each on a cache
 * line of its own so that the two sides do not write the same line) and a data region of {@code
 * capacity} bytes, a power of two. Tail and head are byte positions that only grow (a 64-bit count
 * does not wrap in the life of a machine); a position's place in the data is {@code position &
 * (capacity - 1)}. The producer alone writes the tail, the consumer alone the head; {@code tail -
 * head} bytes are in use.
 *
 * <h2>Ordering</h2>
 *
 * The producer writes a frame's payload and header with plain stores, then publishes it with a
 * release store of the tail; the consumer reads the tail with an acquire load, so every byte of the
 * frames before it is visible. The same holds the other way for the head: the consumer's release
 * store of the head, after it has read the frames, lets the producer reuse their bytes. These are
 * FFM {@link VarHandle}s on the mapped segment, the Java memory model's acquire and release, which
 * on x86 compile to plain moves.
 *
 * <h2>Frames never wrap</h2>
 *
 * A frame lies in one piece, so that the consumer can hand out its payload as one slice. A frame
 * that does not fit before the end of the data is preceded by a padding frame to the end; the
 * consumer skips it. A payload is at most half the ring ({@link IpcDescriptor#maxPayload}), so a
 * frame fits once the ring is empty whatever padding it needs; a larger message goes as parts.
 *
 * <h2>Trust</h2>
 *
 * The two sides are different processes, and a consumer may not trust its producer: a client may
 * write anything into its ring. {@link #poll} checks every header against the positions and the
 * capacity, and every read is of the mapped segment, whose bounds FFM checks: garbage ends in a
 * {@link IpcException}, never in a read outside the ring. A consumer that must parse a payload
 * copies it out first, since the producer could change it while it is read.
 *
 * <p>Each instance is used by one thread on one side: producer methods by the producer, consumer
 * methods by the consumer.
 */
public final class Ring {
  private static final VarHandle POSITION = ValueLayout.JAVA_LONG.varHandle();

  private final MemorySegment control;
  private final MemorySegment data;
  private final int capacity;
  private final int mask;
  private final int maxPayload;
  private final Doorbell consumerBell;
  private final Doorbell producerBell;

  // Producer state.
  private long tail;
  private long headSeen;
  private int claimedAt = -1;
  private int claimedLength;
  private int openRoom;

  // Consumer state.
  private long read;
  private long tailSeen;
  private int frameKind;
  private int payloadLength;

  /**
   * A ring over {@code control} (its control block) and {@code data} ({@code capacity} bytes);
   * {@code consumerBell} is what the producer rings after publishing (the consumer's doorbell,
   * which may be shared with other rings it reads).
   */
  public Ring(MemorySegment control, MemorySegment data, Doorbell consumerBell) {
    this(control, data, consumerBell, null);
  }

  /**
   * As {@link #Ring(MemorySegment, MemorySegment, Doorbell)}, with {@code producerBell} the
   * doorbell {@link #release} rings: the producer's own, when it does not wait on this ring's word
   * (a server agent that serves many rings sleeps on one doorbell); null for this ring's word.
   */
  public Ring(
      MemorySegment control, MemorySegment data, Doorbell consumerBell, Doorbell producerBell) {
    String problem = checkCapacity(data.byteSize());
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    this.control = control.asSlice(0, CONTROL_LENGTH);
    this.data = data;
    this.capacity = (int) data.byteSize();
    this.mask = capacity - 1;
    this.maxPayload = IpcDescriptor.maxPayload(capacity);
    this.consumerBell = consumerBell;
    this.producerBell =
        producerBell != null
            ? producerBell
            : new Doorbell(this.control.asSlice(PRODUCER_WAITING_OFFSET, 4));
    this.tail = (long) POSITION.getAcquire(this.control, (long) TAIL_OFFSET);
    this.headSeen = (long) POSITION.getAcquire(this.control, (long) HEAD_OFFSET);
    // The other side may have written these: a position off the frame grid would put a header
    // where it cannot be read whole (the fuzzer's first finding).
    if ((tail & (FRAME_ALIGNMENT - 1)) != 0
        || (headSeen & (FRAME_ALIGNMENT - 1)) != 0
        || tail - headSeen < 0
        || tail - headSeen > capacity) {
      throw new IpcException(
          "ring positions head "
              + headSeen
              + " and tail "
              + tail
              + " are not 8-byte aligned within a ring's length of each other");
    }
    this.read = headSeen;
    this.tailSeen = headSeen;
  }

  public int capacity() {
    return capacity;
  }

  /** The largest payload of one frame. */
  public int maxPayload() {
    return maxPayload;
  }

  /** The control block (tail, head, doorbell words). */
  public MemorySegment control() {
    return control;
  }

  /** The data region: payload offsets from {@link #tryClaim} and {@link #poll} index into it. */
  public MemorySegment data() {
    return data;
  }

  // ------------------------------------------------------------------ producer

  /**
   * Claims room for a frame of {@code length} payload bytes; returns the payload's offset in {@link
   * #data()}, or -1 when the ring has no room for it now. Write the payload there, then {@link
   * #commit}.
   */
  public int tryClaim(int length) {
    if (length < 0 || length > maxPayload) {
      throw new IllegalArgumentException(
          "frame payload of " + length + " bytes; at most " + maxPayload + " fit one frame");
    }
    int frame = frameLength(length);
    int at = (int) (tail & mask);
    int padding = at + frame > capacity ? capacity - at : 0;
    long needed = (long) padding + frame;
    if (needed > capacity - (tail - headSeen)) {
      headSeen = (long) POSITION.getAcquire(control, (long) HEAD_OFFSET);
      if (needed > capacity - (tail - headSeen)) {
        return -1;
      }
    }
    if (padding > 0) {
      data.set(INT, at + FRAME_LENGTH_OFFSET, padding - FRAME_HEADER_LENGTH);
      data.set(INT, at + FRAME_KIND_OFFSET, KIND_PADDING);
      tail += padding;
      at = 0;
    }
    claimedAt = at;
    claimedLength = length;
    return at + FRAME_HEADER_LENGTH;
  }

  /**
   * Publishes the claimed frame as {@code kind} ({@link IpcDescriptor#KIND_MESSAGE} or {@link
   * IpcDescriptor#KIND_PART}), and rings the consumer's doorbell.
   */
  public void commit(int kind) {
    if (claimedAt < 0) {
      throw new IllegalStateException("commit without a claim");
    }
    data.set(INT, claimedAt + FRAME_KIND_OFFSET, kind);
    data.set(INT, claimedAt + FRAME_LENGTH_OFFSET, claimedLength);
    tail += frameLength(claimedLength);
    claimedAt = -1;
    POSITION.setRelease(control, (long) TAIL_OFFSET, tail);
    consumerBell.ring();
  }

  /**
   * Opens a frame to append to, with at least {@code min} bytes of room, as large as the ring's
   * contiguous free space allows (at most {@link #maxPayload()}); returns the room, or -1 when the
   * ring has less than {@code min} now. Append at {@link #appendAt()}, count with {@link
   * #appended}, then {@link #close}. For a producer that writes a batch as it goes (a value
   * straight from where it lies into the ring), where {@link #tryClaim} needs the length first.
   */
  public int open(int min) {
    if (claimedAt >= 0) {
      throw new IllegalStateException("a frame is already open");
    }
    if (min < 0 || min > maxPayload) {
      throw new IllegalArgumentException("room of " + min + " bytes; at most " + maxPayload);
    }
    headSeen = (long) POSITION.getAcquire(control, (long) HEAD_OFFSET);
    int at = (int) (tail & mask);
    long free = capacity - (tail - headSeen);
    int contiguous = capacity - at;
    int padding = 0;
    if (contiguous < frameLength(min)) {
      padding = contiguous; // the frame starts over at the beginning of the data
      free -= padding;
      contiguous = capacity;
    }
    long fits = (Math.min(free, contiguous) & -FRAME_ALIGNMENT) - FRAME_HEADER_LENGTH;
    if (fits < min) {
      return -1;
    }
    if (padding > 0) {
      data.set(INT, at + FRAME_LENGTH_OFFSET, padding - FRAME_HEADER_LENGTH);
      data.set(INT, at + FRAME_KIND_OFFSET, KIND_PADDING);
      tail += padding;
      at = 0;
    }
    claimedAt = at;
    claimedLength = 0;
    openRoom = (int) Math.min(fits, maxPayload);
    return openRoom;
  }

  /** Where the next byte of the open frame goes, in {@link #data()}. */
  public int appendAt() {
    return claimedAt + FRAME_HEADER_LENGTH + claimedLength;
  }

  /** Room left in the open frame. */
  public int room() {
    return claimedAt < 0 ? 0 : openRoom - claimedLength;
  }

  /** Counts {@code n} bytes written at {@link #appendAt()}. */
  public void appended(int n) {
    if (n < 0 || n > room()) {
      throw new IllegalArgumentException(n + " bytes appended with " + room() + " of room");
    }
    claimedLength += n;
  }

  /** Whether a frame is open. */
  public boolean isOpen() {
    return claimedAt >= 0;
  }

  /** Closes the open frame with what was appended and publishes it as {@code kind}. */
  public void close(int kind) {
    commit(kind);
  }

  /** Waits up to {@code timeoutNanos} for room for a frame of {@code length} payload bytes. */
  public boolean awaitRoom(int length, long timeoutNanos) {
    long needed = 2L * frameLength(length); // at most the frame and as much padding
    return producerBell.await(
        () -> needed <= capacity - (tail - (long) POSITION.getAcquire(control, (long) HEAD_OFFSET)),
        timeoutNanos);
  }

  /** Bytes published and not yet released by the consumer (producer side). */
  public long pending() {
    return tail - (long) POSITION.getAcquire(control, (long) HEAD_OFFSET);
  }

  // ------------------------------------------------------------------ consumer

  /**
   * The next frame's payload offset in {@link #data()}, or -1 when no frame is published; padding
   * is skipped. Its kind and length are then {@link #frameKind()} and {@link #payloadLength()}; it
   * stays valid until {@link #release()}. Several frames may be polled before one release.
   *
   * @throws IpcException when the producer's positions or a frame header break the ring's rules
   */
  public int poll() {
    while (true) {
      if (read == tailSeen) {
        tailSeen = (long) POSITION.getAcquire(control, (long) TAIL_OFFSET);
        long published = tailSeen - read;
        if (published < 0 || published > capacity) {
          throw new IpcException(
              "ring tail " + tailSeen + " is not within a ring's length of its head " + read);
        }
        if (published == 0) {
          return -1;
        }
      }
      int at = (int) (read & mask);
      int length = data.get(INT, at + FRAME_LENGTH_OFFSET);
      int kind = data.get(INT, at + FRAME_KIND_OFFSET);
      if (length < 0 || length > capacity - FRAME_HEADER_LENGTH) {
        throw corrupt("a frame length of " + length, at);
      }
      int frame = frameLength(length);
      if (frame > tailSeen - read || at + frame > capacity) {
        throw corrupt("a frame of " + frame + " bytes past what was published", at);
      }
      read += frame;
      if (kind == KIND_PADDING) {
        if (at + frame != capacity) {
          throw corrupt("padding that does not end at the ring's end", at);
        }
        continue;
      }
      if ((kind != KIND_MESSAGE && kind != KIND_PART) || length > maxPayload) {
        throw corrupt("a frame of kind " + kind + " and " + length + " bytes", at);
      }
      frameKind = kind;
      payloadLength = length;
      return at + FRAME_HEADER_LENGTH;
    }
  }

  public int frameKind() {
    return frameKind;
  }

  public int payloadLength() {
    return payloadLength;
  }

  /** Hands the bytes of every frame polled so far back to the producer, and rings it. */
  public void release() {
    POSITION.setRelease(control, (long) HEAD_OFFSET, read);
    producerBell.ring();
  }

  /** Whether a frame is published beyond what was polled (consumer side; cheap). */
  public boolean readable() {
    return read != tailSeen || read != (long) POSITION.getAcquire(control, (long) TAIL_OFFSET);
  }

  /** Waits up to {@code timeoutNanos} for a frame, on the consumer's doorbell. */
  public boolean awaitFrame(long timeoutNanos) {
    return consumerBell.await(this::readable, timeoutNanos);
  }

  private IpcException corrupt(String what, int at) {
    return new IpcException("ring holds " + what + " at offset " + at + " (position " + read + ")");
  }
}
