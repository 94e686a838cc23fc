package dev.cellar.ipc;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The client's end of one shared-memory connection, as a byte stream each way: what a socket is to
 * a TCP client. {@link #connect} finds the server through its discovery file, offers a ring file,
 * and waits until the server attaches it; then {@link #write} puts bytes into the request ring as
 * frames and {@link #read} takes the server's bytes from the response ring.
 *
 * <h2>Waiting, and noticing a dead server</h2>
 *
 * Every wait (for room, for a response, for the attach) spins briefly, then sleeps on a futex, and
 * wakes at least every 100 ms to look at the server: a ring the server closed (its reason is in the
 * ring file), a discovery file marked stopped, or a server process that is gone all end the wait
 * with an {@link IpcException} saying which. So a server killed with SIGKILL is noticed within a
 * tenth of a second, and never waited for forever.
 *
 * <h2>Writing when the ring is full</h2>
 *
 * The server stops reading a client whose responses it cannot write. A client blocked on a full
 * request ring would then wait forever if it did not read meanwhile, so {@link #write} moves the
 * responses that arrive while it waits into a buffer of its own, and {@link #read} serves that
 * first. The buffer grows only by what the client's own pipelining asked for.
 *
 * <h2>Heartbeat</h2>
 *
 * A daemon thread stamps every open channel's ring file once a second, so that the server can tell
 * a client that is alive but idle from one that hangs.
 *
 * <p>One thread may write while another reads (as with a socket's two streams); each side is the
 * caller's to serialize.
 */
public final class RingChannel implements AutoCloseable {
  private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final Set<RingChannel> OPEN = ConcurrentHashMap.newKeySet();
  private static final SecureRandom RANDOM = new SecureRandom();

  static {
    Thread.ofPlatform()
        .name("cellar-ipc-heartbeat")
        .daemon()
        .start(
            () -> {
              while (true) {
                long now = System.currentTimeMillis();
                for (RingChannel c : OPEN) {
                  c.beat(now);
                }
                try {
                  Thread.sleep(1000);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
  }

  private final Discovery discovery;
  private final RingFile file;
  private final Ring requests;
  private final Ring responses;
  private final ProcessIdentity server;
  private volatile boolean closed;

  /**
   * Held by whoever reads the response ring: a reading thread, or a write that drains responses
   * while it waits for room. A write drains only if no thread is reading (one that is keeps the
   * responses moving anyway), so a channel may have one thread writing and another reading.
   */
  private final java.util.concurrent.atomic.AtomicBoolean reading =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Responses read while a write waited for room; served by {@link #read} first. */
  private byte[] early = new byte[0];

  private int earlyStart;
  private int earlyEnd;

  /** A segment over {@link #early}, for bytes lent from it in place. */
  private MemorySegment earlyView;

  /** What the current in-place loan points into, and where ({@link #awaitInPlace}). */
  private MemorySegment lentSegment;

  private long lentOffset;

  /** Where the response frame being read stands: its payload's next byte and end. */
  private int frameAt = -1;

  private int frameEnd;

  private RingChannel(Discovery discovery, RingFile file, ProcessIdentity server) {
    this.discovery = discovery;
    this.file = file;
    this.server = server;
    this.requests = file.requests(discovery.doorbell(file.agent()));
    this.responses = file.responses(discovery.doorbell(file.agent()));
  }

  /**
   * Connects to the server whose discovery file is {@code discoveryFile}, with rings of {@code
   * capacity} bytes each way, waiting up to {@code timeoutNanos} for the server to attach.
   *
   * @throws IpcException when the server is not running, refuses (its reason), or does not answer
   * @throws IOException when the files cannot be made or read
   */
  public static RingChannel connect(Path discoveryFile, int capacity, long timeoutNanos)
      throws IOException {
    Discovery discovery = Discovery.open(discoveryFile.getParent());
    RingFile file = null;
    try {
      if (!discovery.serving()) {
        throw new IpcException(
            "the server of " + discoveryFile + " is not running (stopped, or on another host)");
      }
      if (capacity > discovery.maxCapacity()) {
        capacity = discovery.maxCapacity();
      }
      ProcessIdentity self = ProcessIdentity.current();
      byte[] nonce = new byte[8];
      RANDOM.nextBytes(nonce);
      String name =
          "c" + self.pid() + "-" + HexFormat.of().formatHex(nonce) + IpcDescriptor.RING_SUFFIX;
      file = RingFile.create(discovery.ringDirectory().resolve(name), capacity, self);
      long deadline = System.nanoTime() + timeoutNanos;
      while (!discovery.requestConnection(name)) {
        if (System.nanoTime() > deadline) {
          throw new IpcException("every connect slot of the server stayed busy");
        }
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
      int state;
      while ((state = file.awaitStateChange(IpcDescriptor.RING_OFFERED, LOOK_NANOS))
          == IpcDescriptor.RING_OFFERED) {
        if (!discovery.serving()) {
          throw new IpcException("the server stopped while connecting");
        }
        if (System.nanoTime() > deadline) {
          throw new IpcException("the server did not take the connection in time");
        }
      }
      if (state != IpcDescriptor.RING_ATTACHED) {
        String reason = file.reason();
        throw new IpcException(
            "the server refused the connection" + (reason.isEmpty() ? "" : ": " + reason));
      }
      RingChannel channel = new RingChannel(discovery, file, discovery.server());
      OPEN.add(channel);
      return channel;
    } catch (IOException | RuntimeException e) {
      if (file != null) {
        file.delete();
      }
      discovery.close();
      throw e;
    }
  }

  /** The most bytes one frame carries; writes of more go as several. */
  public int maxFrame() {
    return requests.maxPayload();
  }

  /** Sends {@code length} bytes of {@code bytes}, waiting for room as needed. */
  public void write(byte[] bytes, int offset, int length) {
    while (length > 0) {
      int chunk = Math.min(length, requests.maxPayload());
      int at;
      while ((at = requests.tryClaim(chunk)) < 0) {
        awaitRoom(chunk);
      }
      MemorySegment.copy(bytes, offset, requests.data(), ValueLayout.JAVA_BYTE, at, chunk);
      offset += chunk;
      length -= chunk;
      requests.commit(length == 0 ? IpcDescriptor.KIND_MESSAGE : IpcDescriptor.KIND_PART);
    }
  }

  private void awaitRoom(int chunk) {
    while (true) {
      if (reading.compareAndSet(false, true)) {
        try {
          drainResponses();
        } finally {
          reading.set(false);
        }
      }
      if (requests.awaitRoom(chunk, LOOK_NANOS)) {
        return;
      }
      checkServer();
    }
  }

  /** Moves every response published so far into {@link #early}. */
  private void drainResponses() {
    int at;
    while (frameAt >= 0 || (at = nextFrame()) >= 0) {
      int n = frameEnd - frameAt;
      if (earlyEnd + n > early.length) {
        int kept = earlyEnd - earlyStart;
        byte[] bigger = new byte[Math.max(kept + n, 2 * early.length)];
        System.arraycopy(early, earlyStart, bigger, 0, kept);
        early = bigger;
        earlyStart = 0;
        earlyEnd = kept;
      }
      MemorySegment.copy(responses.data(), ValueLayout.JAVA_BYTE, frameAt, early, earlyEnd, n);
      earlyEnd += n;
      frameAt = -1;
      responses.release();
    }
  }

  /** Polls the next response frame into {@link #frameAt} and {@link #frameEnd}; -1 if none. */
  private int nextFrame() {
    int at = responses.poll();
    if (at >= 0) {
      frameAt = at;
      frameEnd = at + responses.payloadLength();
    }
    return at;
  }

  /**
   * Reads up to {@code length} bytes of the server's responses into {@code bytes}, waiting until at
   * least one is there; returns how many.
   *
   * @throws IpcException when the server closed the connection, stopped or died
   */
  public int read(byte[] bytes, int offset, int length) {
    return read(bytes, offset, length, Long.MAX_VALUE);
  }

  /**
   * As {@link #read(byte[], int, int)}, waiting at most {@code timeoutNanos}: returns 0 when
   * nothing came in that time.
   */
  public int read(byte[] bytes, int offset, int length, long timeoutNanos) {
    long deadline = System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
    while (!reading.compareAndSet(false, true)) {
      Thread.onSpinWait(); // a write draining responses: it is brief
    }
    try {
      if (earlyEnd > earlyStart) {
        return fromEarly(bytes, offset, length);
      }
      while (frameAt < 0 && nextFrame() < 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return 0;
        }
        if (!responses.awaitFrame(Math.min(left, LOOK_NANOS))) {
          checkServer();
        }
      }
      return fromFrame(bytes, offset, length);
    } finally {
      reading.set(false);
    }
  }

  /**
   * Reads what has arrived, up to {@code length} bytes, without waiting: 0 if nothing has.
   *
   * @throws IpcException when the server closed the connection, stopped or died
   */
  public int readNow(byte[] bytes, int offset, int length) {
    if (!reading.compareAndSet(false, true)) {
      return 0;
    }
    try {
      if (earlyEnd > earlyStart) {
        return fromEarly(bytes, offset, length);
      }
      if (frameAt < 0 && nextFrame() < 0) {
        checkServer();
        return 0;
      }
      return fromFrame(bytes, offset, length);
    } finally {
      reading.set(false);
    }
  }

  // ---------------------------------------------------------------- reading in place

  /**
   * Waits up to {@code timeoutNanos} for response bytes and lends them in place: the {@code n}
   * bytes this returns are at {@link #inPlaceOffset()} of {@link #inPlaceSegment()}, where the
   * reader parses them without copying them out. They stay there, untouched by the server, until
   * {@link #consumeInPlace}, which must follow every call that returned more than 0: until then
   * this channel's reading side is held (a write waiting for room does not move responses
   * meanwhile). Returns 0, holding nothing, when nothing came in that time.
   *
   * @throws IpcException when the server closed the connection, stopped or died
   */
  public int awaitInPlace(long timeoutNanos) {
    long deadline = System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
    while (!reading.compareAndSet(false, true)) {
      Thread.onSpinWait(); // a write draining responses: it is brief
    }
    boolean lent = false;
    try {
      if (earlyEnd > earlyStart) {
        lent = true;
        return lendEarly();
      }
      while (frameAt < 0 && nextFrame() < 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return 0;
        }
        if (!responses.awaitFrame(Math.min(left, LOOK_NANOS))) {
          checkServer();
        }
      }
      lent = true;
      lentSegment = responses.data();
      lentOffset = frameAt;
      return frameEnd - frameAt;
    } finally {
      if (!lent) {
        reading.set(false);
      }
    }
  }

  /**
   * As {@link #awaitInPlace} without waiting: the bytes that have arrived, or 0 (holding nothing)
   * if none have.
   *
   * @throws IpcException when the server closed the connection, stopped or died
   */
  public int pollInPlace() {
    if (!reading.compareAndSet(false, true)) {
      return 0;
    }
    if (earlyEnd > earlyStart) {
      return lendEarly();
    }
    if (frameAt < 0 && nextFrame() < 0) {
      reading.set(false);
      checkServer();
      return 0;
    }
    lentSegment = responses.data();
    lentOffset = frameAt;
    return frameEnd - frameAt;
  }

  private int lendEarly() {
    if (earlyView == null || earlyView.heapBase().orElse(null) != early) {
      earlyView = MemorySegment.ofArray(early);
    }
    lentSegment = earlyView;
    lentOffset = earlyStart;
    return earlyEnd - earlyStart;
  }

  /** The memory that holds the bytes the last {@link #awaitInPlace} lent. */
  public MemorySegment inPlaceSegment() {
    return lentSegment;
  }

  /** Where in {@link #inPlaceSegment()} those bytes begin. */
  public long inPlaceOffset() {
    return lentOffset;
  }

  /**
   * Ends a loan: the first {@code n} of the bytes lent were read. A frame read to its end goes back
   * to the server; bytes not read are lent again by the next {@link #awaitInPlace}.
   */
  public void consumeInPlace(int n) {
    if (lentSegment == earlyView) {
      earlyStart += n;
      if (earlyStart == earlyEnd) {
        earlyStart = earlyEnd = 0;
      }
    } else {
      frameAt += n;
      if (frameAt == frameEnd) {
        frameAt = -1;
        responses.release();
      }
    }
    lentSegment = null;
    reading.set(false);
  }

  private int fromEarly(byte[] bytes, int offset, int length) {
    int n = Math.min(length, earlyEnd - earlyStart);
    System.arraycopy(early, earlyStart, bytes, offset, n);
    earlyStart += n;
    if (earlyStart == earlyEnd) {
      earlyStart = earlyEnd = 0;
    }
    return n;
  }

  private int fromFrame(byte[] bytes, int offset, int length) {
    int n = Math.min(length, frameEnd - frameAt);
    MemorySegment.copy(responses.data(), ValueLayout.JAVA_BYTE, frameAt, bytes, offset, n);
    frameAt += n;
    if (frameAt == frameEnd) {
      frameAt = -1;
      responses.release();
    }
    return n;
  }

  /** Whether response bytes are waiting to be read (without waiting). */
  public boolean readable() {
    return earlyEnd > earlyStart || frameAt >= 0 || responses.readable();
  }

  private void checkServer() {
    if (closed) {
      throw new IpcException("the connection is closed");
    }
    int state = file.state();
    if (state == IpcDescriptor.RING_CLOSED_BY_SERVER) {
      String reason = file.reason();
      throw new IpcException(
          "the server closed the connection" + (reason.isEmpty() ? "" : ": " + reason));
    }
    if (discovery.state() == IpcDescriptor.SERVER_STOPPED || !server.alive()) {
      throw new IpcException("the server stopped (process " + server.pid() + ")");
    }
  }

  private void beat(long now) {
    if (!closed) {
      try {
        file.heartbeat(now);
      } catch (IllegalStateException unmapped) {
        // closed meanwhile
      }
    }
  }

  /** Tells the server, unmaps the files; the server deletes the ring file. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    OPEN.remove(this);
    try {
      file.state(IpcDescriptor.RING_CLOSED_BY_CLIENT);
      discovery.doorbell(file.agent()).ring();
    } catch (RuntimeException e) {
      // the mapping is going anyway
    }
    file.close();
    discovery.close();
  }
}
