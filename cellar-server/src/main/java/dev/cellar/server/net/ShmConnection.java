package dev.cellar.server.net;

import dev.cellar.ipc.IpcDescriptor;
import dev.cellar.ipc.IpcException;
import dev.cellar.ipc.ProcessIdentity;
import dev.cellar.ipc.Ring;
import dev.cellar.ipc.RingFile;
import dev.cellar.server.command.ClientChannel;
import dev.cellar.server.command.ClientMemory;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.command.Session;
import dev.cellar.server.resp.Numbers;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.RequestParser;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * One shared-memory client: its ring file, read and answered by one {@link ShmAgent}. The rings
 * carry the same RESP bytes a socket would, so requests go through the same {@link RequestStream},
 * parser, limits and {@link Dispatcher} as over TCP; only where the bytes come from and go to
 * differs.
 *
 * <h2>Back-pressure</h2>
 *
 * Replies go into the response ring as frames of up to half its size. When the ring is full (the
 * client is not reading), what does not fit waits in {@link #unsent}, and the connection reads no
 * further requests until it is gone: the client's request ring then fills and the client waits for
 * room. So a client that does not read costs the server at most one batch of output, never a queue
 * that grows; and a client blocked on a full request ring reads its responses meanwhile, which is
 * what lets both go on.
 *
 * <h2>Durability</h2>
 *
 * Under {@code appendfsync always}, output that follows a write is held until the engine reports
 * the fsync covering it ({@link DurableReplies}, the engine's one durability call, as for TCP), in
 * order behind earlier held output; a failed fsync turns each held reply into an error.
 *
 * <h2>Trust</h2>
 *
 * Every frame is checked by the ring ({@link Ring#poll}) and its bytes are copied into the query
 * buffer before they are parsed, so a client that rewrites a frame while it is read changes nothing
 * the server relies on. A broken ring closes the connection with the reason logged and written into
 * the ring file for the client.
 *
 * <p>Owned by its agent's thread; {@link Control} is how other threads reach it.
 */
final class ShmConnection implements DurableReplies.Waiter {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  /** Request bytes read per turn, so that one busy client does not starve the agent's others. */
  private static final int READ_PER_TURN = 256 * 1024;

  private final ServerContext server;
  private final ShmAgent agent;
  private final RingFile file;
  private final Ring requests;
  private final Ring responses;
  private final ProcessIdentity client;
  private final DurableReplies barrier;
  private final ReplyWriter out = new ReplyWriter(16 * 1024);
  private final Session session;
  private final ClientMemory.Account memory;
  private final RequestStream input;

  /** Output that did not fit the response ring, oldest first. */
  private final ArrayDeque<byte[]> unsent = new ArrayDeque<>();

  private long unsentBytes;

  /** The response ring's unreleased bytes when output last found no room: see {@link #readable}. */
  private long pendingWhenStalled;

  private int unsentOffset; // into unsent's first array

  /** Output waiting for an fsync, with the ticket it waits for and the replies in it; in order. */
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  private long heldBytes;
  private boolean closed;

  /**
   * Whether GET writes its value straight from the log into the response ring (see {@link
   * #directBulk}): not under {@code appendfsync always}, whose replies wait for their fsync.
   */
  private final boolean direct;

  /** A bulk header being built: {@code $}, up to 20 digits, CRLF. */
  private final byte[] header = new byte[24];

  private record Held(byte[] bytes, long ticket, int replies) {}

  ShmConnection(
      ServerContext server,
      ShmAgent agent,
      RingFile file,
      Dispatcher dispatcher,
      DurableReplies barrier,
      long id) {
    this.server = server;
    out.countErrors(server.stats().errors);
    this.agent = agent;
    this.file = file;
    this.requests = file.requests(agent.doorbell());
    this.responses = file.responses();
    this.client = file.client();
    this.barrier = barrier;
    this.session = new Session(id, "shm:" + client.pid(), "shm", out, server);
    this.memory = server.clientMemory().open(session.address(), () -> agent.execute(this::evicted));
    this.input =
        new RequestStream(
            server,
            dispatcher,
            new RequestParser(server.config().maxBulkLength()),
            session,
            out,
            new RequestStream.Host() {
              @Override
              public boolean account(int inCapacity) {
                return accountMemory(inCapacity, out.capacity());
              }

              @Override
              public void flushOutput() {
                writeOut();
              }

              @Override
              public ClientMemory.Account memory() {
                return memory;
              }
            });
    session.channel(new Control());
    this.direct = barrier == null;
    if (direct) {
      session.bulkReply(this::directBulk);
    }
    // The reply buffer's growth is asked before it happens: counted at the size it would have.
    out.limitGrowth((from, to) -> accountMemory(input.capacity(), to));
    server.clients().add(session);
    accountMemory(input.capacity(), out.capacity());
  }

  Session session() {
    return session;
  }

  ProcessIdentity client() {
    return client;
  }

  RingFile file() {
    return file;
  }

  boolean closed() {
    return closed;
  }

  /**
   * Whether this connection has work now: requests the client published, or, while output waits for
   * room, room the client has made since (its release rings this agent's doorbell).
   */
  boolean readable() {
    if (closed) {
      return false;
    }
    return unsent.isEmpty() ? requests.readable() : responses.pending() < pendingWhenStalled;
  }

  /**
   * One turn: sends what waited for room, then reads and answers the client's requests. Returns
   * whether anything was done. A broken ring closes the connection.
   */
  boolean turn() {
    if (closed) {
      return false;
    }
    if (file.state() == IpcDescriptor.RING_CLOSED_BY_CLIENT) {
      close("closed by the client");
      return true;
    }
    try {
      boolean did = flushUnsent();
      if (!unsent.isEmpty()) {
        pendingWhenStalled = responses.pending();
        return did; // the client is not reading: read nothing more from it (back-pressure)
      }
      int read = 0;
      int at;
      while (read < READ_PER_TURN && !session.closing() && (at = requests.poll()) >= 0) {
        int n = requests.payloadLength();
        if (input.reserve(n)) {
          MemorySegment.copy(
              requests.data(), ValueLayout.JAVA_BYTE, at, input.buffer(), input.end(), n);
          input.appended(n);
        }
        read += n;
      }
      if (read == 0) {
        return did;
      }
      requests.release();
      server.sampler().netInputBytes.add(read);
      if (!session.closing()) {
        input.process();
      }
      writeOut();
      if (session.closing() && held.isEmpty()) {
        close("closed by the server");
      }
      return true;
    } catch (RuntimeException e) {
      // IpcException: the client's bytes broke the ring's rules. Anything else here is a fault of
      // this connection alone (commands catch their own): it ends, the agent and its other
      // clients go on.
      String reason = e instanceof IpcException ? e.getMessage() : "an internal error: " + e;
      LOG.log(
          System.Logger.Level.WARNING,
          "closing shared-memory client " + session.address() + ": " + reason);
      close(reason);
      return true;
    }
  }

  /** Moves the output so far to the ring, or behind an fsync ticket under {@code always}. */
  private void writeOut() {
    boolean wrote = session.takeWrote();
    int count = input.takeReplies();
    if (responses.isOpen()) {
      // Values written straight into the ring come before what the output holds now.
      if (out.size() > 0 && out.size() <= responses.room()) {
        appendOut();
      }
      responses.close(IpcDescriptor.KIND_MESSAGE);
    }
    if (out.size() == 0) {
      return;
    }
    server.sampler().netOutputBytes.add(out.size());
    if (barrier != null && (wrote || !held.isEmpty())) {
      byte[] bytes = java.util.Arrays.copyOf(out.buffer(), out.size());
      out.reset();
      long ticket = wrote ? barrier.request(this) : held.peekLast().ticket;
      held.add(new Held(bytes, ticket, count));
      heldBytes += bytes.length;
      accountMemory(input.capacity(), out.capacity());
      return;
    }
    send(out.buffer(), 0, out.size());
    out.reset();
    out.shrinkTo(1 << 20);
  }

  /**
   * A value GET or MGET found, written where the client reads it: the output before it first, then
   * {@code $length CRLF value CRLF}, all into one open frame of the response ring, so the value is
   * copied once, from the log into the ring. The frame is published at the end of the turn ({@link
   * #writeOut}). When that cannot be done in one frame now (output waiting for room, a value over
   * half the ring, a full ring), the value goes through the reply buffer as for TCP.
   */
  private void directBulk(MemorySegment source, long offset, long length) {
    int headerLength = 1 + Numbers.decimalLength(length) + 2;
    long needed = headerLength + length + 2 + out.size();
    if (!unsent.isEmpty() || needed > responses.maxPayload() || !roomInFrame((int) needed)) {
      out.bulk(source, offset, length);
      return;
    }
    appendOut();
    header[0] = '$';
    int end = Numbers.writeDecimal(header, 1, length);
    header[end++] = '\r';
    header[end++] = '\n';
    MemorySegment data = responses.data();
    int at = responses.appendAt();
    MemorySegment.copy(header, 0, data, ValueLayout.JAVA_BYTE, at, end);
    MemorySegment.copy(source, offset, data, at + end, length);
    int tail = at + end + (int) length;
    data.set(ValueLayout.JAVA_BYTE, tail, (byte) '\r');
    data.set(ValueLayout.JAVA_BYTE, tail + 1, (byte) '\n');
    responses.appended(end + (int) length + 2);
    server.sampler().netOutputBytes.add(end + length + 2);
  }

  /** An open response frame with {@code needed} bytes of room: the one open, or a new one. */
  private boolean roomInFrame(int needed) {
    if (responses.isOpen()) {
      if (responses.room() >= needed) {
        return true;
      }
      responses.close(IpcDescriptor.KIND_PART);
    }
    return responses.open(needed) >= 0;
  }

  /** Moves the reply buffer's bytes into the open frame (which has room for them). */
  private void appendOut() {
    int n = out.size();
    if (n > 0) {
      MemorySegment.copy(
          out.buffer(), 0, responses.data(), ValueLayout.JAVA_BYTE, responses.appendAt(), n);
      responses.appended(n);
      server.sampler().netOutputBytes.add(n);
      out.reset();
    }
  }

  /** Writes {@code length} bytes to the response ring as frames; what does not fit waits. */
  private void send(byte[] bytes, int offset, int length) {
    if (unsent.isEmpty()) {
      int sent = writeFrames(bytes, offset, length);
      offset += sent;
      length -= sent;
    }
    if (length > 0) {
      unsent.add(java.util.Arrays.copyOfRange(bytes, offset, offset + length));
      unsentBytes += length;
      if (unsentBytes > server.config().outputBufferLimit()) {
        server.stats().outputLimitDisconnects.increment();
        LOG.log(
            System.Logger.Level.WARNING,
            "closing shared-memory client "
                + session.address()
                + ": output over client-output-buffer-limit");
        close("output over client-output-buffer-limit");
        return;
      }
      accountMemory(input.capacity(), out.capacity());
    }
  }

  /** Writes as many frames as fit; returns the bytes written. */
  private int writeFrames(byte[] bytes, int offset, int length) {
    int written = 0;
    while (written < length) {
      int chunk = Math.min(length - written, responses.maxPayload());
      int at = responses.tryClaim(chunk);
      if (at < 0) {
        break;
      }
      MemorySegment.copy(
          bytes, offset + written, responses.data(), ValueLayout.JAVA_BYTE, at, chunk);
      written += chunk;
      responses.commit(written == length ? IpcDescriptor.KIND_MESSAGE : IpcDescriptor.KIND_PART);
    }
    return written;
  }

  private boolean flushUnsent() {
    boolean did = false;
    while (!unsent.isEmpty()) {
      byte[] first = unsent.peek();
      int sent = writeFrames(first, unsentOffset, first.length - unsentOffset);
      did |= sent > 0;
      unsentOffset += sent;
      unsentBytes -= sent;
      if (unsentOffset < first.length) {
        return did;
      }
      unsent.poll();
      unsentOffset = 0;
    }
    accountMemory(input.capacity(), out.capacity());
    if (session.closing() && held.isEmpty()) {
      close("closed by the server");
    }
    return did;
  }

  private boolean accountMemory(int inCapacity, int outCapacity) {
    long total = inCapacity + (long) outCapacity + heldBytes + unsentBytes;
    return total == memory.bytes() || server.clientMemory().set(memory, total);
  }

  @Override
  public Executor loop() {
    return agent;
  }

  @Override
  public boolean inLoop() {
    return agent.inAgent();
  }

  @Override
  public void durable(long completed, RuntimeException failure) {
    if (closed) {
      return;
    }
    if (failure != null) {
      refuseHeld(failure);
      return;
    }
    for (Held h; (h = held.peek()) != null && h.ticket <= completed; ) {
      held.poll();
      heldBytes -= h.bytes.length;
      send(h.bytes, 0, h.bytes.length);
    }
    if (session.closing() && held.isEmpty() && unsent.isEmpty()) {
      close("closed by the server");
    }
  }

  /**
   * As over TCP: each held reply becomes an error, in order, and no write in it is acknowledged.
   */
  private void refuseHeld(RuntimeException failure) {
    ReplyWriter errors = new ReplyWriter(256);
    errors.countErrors(server.stats().errors);
    String text = DurableReplies.refusal(failure);
    for (Held h; (h = held.poll()) != null; ) {
      heldBytes -= h.bytes.length;
      server.stats().unacknowledgedReplies.add(h.replies);
      for (int i = 0; i < h.replies; i++) {
        errors.error(text);
      }
    }
    send(errors.buffer(), 0, errors.size());
  }

  private void evicted() {
    close("evicted: client buffers over maxmemory-clients");
  }

  /**
   * Ends the connection: the ring file says why (the client reads it), the client is woken, and the
   * file is deleted (both sides' mappings stay valid until unmapped).
   */
  void close(String reason) {
    if (closed) {
      return;
    }
    closed = true;
    held.clear();
    unsent.clear();
    // The file first: a client that no longer counts among the server's has no file left either.
    try {
      if (file.state() == IpcDescriptor.RING_ATTACHED) {
        file.reason(reason);
        file.state(IpcDescriptor.RING_CLOSED_BY_SERVER);
      }
      file.delete();
    } catch (java.io.IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "could not delete "
              + file.path()
              + ": "
              + e.getMessage()
              + "; it goes at the next start");
    }
    server.clients().remove(session);
    server.monitors().remove(session);
    server.disconnected(session);
    server.clientMemory().close(memory);
  }

  /** What commands may do to this connection from other threads: all run on the agent. */
  private final class Control implements ClientChannel {
    @Override
    public boolean canPush() {
      return true;
    }

    @Override
    public void push(byte[] bytes) {
      agent.execute(
          () -> {
            if (!closed) {
              server.sampler().netOutputBytes.add(bytes.length);
              send(bytes, 0, bytes.length);
            }
          });
    }

    /** Bytes handed to {@link #deliver} and not yet written: queued on the agent. */
    private final java.util.concurrent.atomic.AtomicLong undelivered =
        new java.util.concurrent.atomic.AtomicLong();

    /** Queued on the agent, like every other write to this client (see {@code PubSub}). */
    @Override
    public void deliver(
        long bytes, java.util.function.Consumer<dev.cellar.server.resp.ReplyWriter> message) {
      if (undelivered.addAndGet(bytes) > server.config().outputBufferLimit()) {
        undelivered.addAndGet(-bytes);
        agent.execute(
            () -> {
              if (!closed) {
                server.stats().outputLimitDisconnects.increment();
                ShmConnection.this.close(
                    "messages published to it are over client-output-buffer-limit");
              }
            });
        return;
      }
      agent.execute(
          () -> {
            undelivered.addAndGet(-bytes);
            if (!closed && !session.closing()) {
              message.accept(out);
              writeOut();
            }
          });
    }

    @Override
    public void resume(java.util.function.Consumer<dev.cellar.server.resp.ReplyWriter> task) {
      agent.execute(
          () -> {
            if (closed || session.closing()) {
              return;
            }
            int before = out.size();
            task.accept(out);
            if (out.size() > before) {
              input.answered();
            }
            if (!session.blocked()) {
              input.process();
            }
            writeOut();
          });
    }

    @Override
    public void close() {
      agent.execute(() -> ShmConnection.this.close("killed (CLIENT KILL)"));
    }

    @Override
    public void noEvict(boolean on) {
      memory.noEvict(on);
    }

    @Override
    public long memory() {
      return memory.bytes();
    }
  }
}
