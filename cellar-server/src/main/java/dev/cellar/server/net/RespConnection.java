package dev.cellar.server.net;

import dev.cellar.server.command.ClientMemory;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.command.Session;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.RequestParser;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;

/**
 * One client connection. Bytes from the socket are copied into a growable heap array; every
 * complete request in it is parsed in place and executed on this event loop, its reply appended to
 * one output array; when the read batch ends, the whole output goes to the socket in one write. So
 * a pipelined batch read in one syscall is answered in one syscall, and the GET/SET path allocates
 * nothing per request beyond the key views the engine is given.
 *
 * <p>Under {@code appendfsync always}, output that follows a write waits in {@link #held} until the
 * {@link DurableReplies} reports the fsync covering it; later output queues behind it, so replies
 * keep their order. If that fsync fails, every held reply is replaced by an error reply (one for
 * one, so a pipelining client stays in step): none of those writes is acknowledged, and a reply to
 * a read in the batch may show a write that is not durable. The connection stays open; the store
 * refuses further writes and serves reads. (Closing it instead, as before, left clients to guess:
 * most reconnect and retry, and none could tell the failure from a network fault.)
 */
final class RespConnection extends ChannelInboundHandlerAdapter implements DurableReplies.Waiter {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final ServerContext server;
  private final Dispatcher dispatcher;
  private final RequestParser parser;
  private final DurableReplies barrier;

  private final ReplyWriter out = new ReplyWriter(16 * 1024);
  private Session session;
  private ChannelHandlerContext ctx;

  /** Over maxclients: the refusal is on its way and input is dropped until the close. */
  private boolean rejected;

  /** The query buffer and the request run; made once the connection is accepted. */
  private RequestStream input;

  /** This client's share of {@code maxmemory-clients} (see {@link #accountMemory}). */
  private ClientMemory.Account memory;

  /** Bytes in {@link #held}. */
  private long heldBytes;

  /** Output waiting for an fsync, with the ticket it waits for and the replies in it; in order. */
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  private record Held(ByteBuf bytes, long ticket, int replies) {}

  RespConnection(
      ServerContext server, Dispatcher dispatcher, RequestParser parser, DurableReplies barrier) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.parser = parser;
    this.barrier = barrier;
    out.countErrors(server.stats().errors);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (Transport.closedByKernel(ctx.channel())) {
      rejected = true; // reset before it was accepted: nobody to answer (see DeadPeerSweep)
      ctx.close();
      return;
    }
    server.stats().connectionsReceived.increment();
    session =
        new Session(
            server.clients().nextId(),
            String.valueOf(ctx.channel().remoteAddress()).replaceFirst("^/", ""),
            String.valueOf(ctx.channel().localAddress()).replaceFirst("^/", ""),
            out,
            server);
    if (server.clients().count() >= server.config().maxClients()) {
      server.stats().connectionsRejected.increment();
      rejected = true;
      out.error("ERR max number of clients reached");
      ByteBuf bytes = ctx.alloc().ioBuffer(out.size());
      bytes.writeBytes(out.buffer(), 0, out.size());
      out.reset();
      // Closed once written, not at once: over TLS the reply waits for the handshake, which an
      // immediate close would cut short, and the client would never learn why.
      ctx.writeAndFlush(bytes).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    server.clients().add(session);
    memory = server.clientMemory().open(session.address(), () -> ctx.channel().close());
    session.channel(new Control(ctx, memory));
    input =
        new RequestStream(
            server,
            dispatcher,
            parser,
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
                ctx.flush();
              }

              @Override
              public ClientMemory.Account memory() {
                return memory;
              }
            });
    out.limitGrowth((from, to) -> accountMemory(input.capacity(), to));
    accountMemory(input.capacity(), out.capacity());
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (session != null) {
      server.clients().remove(session);
      server.monitors().remove(session);
      server.disconnected(session);
    }
    if (memory != null) {
      server.clientMemory().close(memory);
    }
    for (Held h; (h = held.poll()) != null; ) {
      h.bytes.release();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf buf = (ByteBuf) msg;
    if (rejected) {
      buf.release();
      return;
    }
    server.sampler().netInputBytes.add(buf.readableBytes());
    try {
      int n = buf.readableBytes();
      if (!session.closing() && input.reserve(n)) {
        buf.readBytes(input.buffer(), input.end(), n);
        input.appended(n);
      }
    } finally {
      buf.release();
    }
    if (session.closing()) {
      return;
    }
    input.process();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (rejected) {
      return;
    }
    writeOut();
    ctx.flush();
    if (session.closing() && held.isEmpty()) {
      ctx.close();
    }
    ctx.fireChannelReadComplete();
  }

  /**
   * Moves the output so far to the channel (not yet flushed), or, when it follows a write under
   * {@code always} or earlier held output, into {@link #held} behind an fsync ticket.
   */
  private void writeOut() {
    boolean wrote = session.takeWrote();
    int count = input.takeReplies();
    if (out.size() == 0) {
      return;
    }
    server.sampler().netOutputBytes.add(out.size());
    ByteBuf bytes = ctx.alloc().ioBuffer(out.size());
    bytes.writeBytes(out.buffer(), 0, out.size());
    out.reset();
    out.shrinkTo(1 << 20);
    if (barrier != null && (wrote || !held.isEmpty())) {
      long ticket = wrote ? barrier.request(this) : held.peekLast().ticket;
      held.add(new Held(bytes, ticket, count));
      heldBytes += bytes.readableBytes();
      checkOutputLimit();
      return;
    }
    write(bytes);
    checkOutputLimit();
  }

  /**
   * Writes {@code bytes} out (not yet flushed). A large write is followed to its end, so that this
   * client's share of {@code maxmemory-clients} drops when the socket has taken it, not at the
   * client's next request; small ones take Netty's shared void promise and allocate nothing.
   */
  private void write(ByteBuf bytes) {
    if (bytes.readableBytes() < RequestStream.FLUSH_THRESHOLD) {
      ctx.write(bytes, ctx.voidPromise());
    } else {
      ctx.write(bytes).addListener(done -> accountMemory(input.capacity(), out.capacity()));
    }
  }

  /**
   * Sets this client's share of {@code maxmemory-clients} to its buffers as they are (or are about
   * to be: the sizes are given): query buffer, reply buffer, output waiting for an fsync and output
   * the socket has not taken yet. False when it would not fit and this client holds the most.
   */
  private boolean accountMemory(int inCapacity, int outCapacity) {
    if (memory == null) {
      return true;
    }
    var outbound = ctx.channel().unsafe().outboundBuffer();
    long total =
        inCapacity
            + (long) outCapacity
            + heldBytes
            + (outbound == null ? 0 : outbound.totalPendingWriteBytes());
    return total == memory.bytes() || server.clientMemory().set(memory, total);
  }

  @Override
  public EventExecutor loop() {
    return ctx.executor();
  }

  @Override
  public boolean inLoop() {
    return ctx.executor().inEventLoop();
  }

  @Override
  public void durable(long completed, RuntimeException failure) {
    if (failure != null) {
      refuseHeld(failure);
      return;
    }
    boolean any = false;
    for (Held h; (h = held.peek()) != null && h.ticket <= completed; ) {
      held.poll();
      heldBytes -= h.bytes.readableBytes();
      write(h.bytes);
      any = true;
    }
    if (any) {
      ctx.flush();
      checkOutputLimit();
    }
    if (session.closing() && held.isEmpty()) {
      ctx.close();
    }
  }

  /**
   * The fsync covering the held output failed: each held reply becomes an error, in order, so no
   * write in it is acknowledged. Output held behind it is refused too, since it may depend on those
   * writes (a read of a key just written).
   */
  private void refuseHeld(RuntimeException failure) {
    ReplyWriter errors = new ReplyWriter(256);
    errors.countErrors(server.stats().errors);
    String text = DurableReplies.refusal(failure);
    for (Held h; (h = held.poll()) != null; ) {
      heldBytes -= h.bytes.readableBytes();
      h.bytes.release();
      server.stats().unacknowledgedReplies.add(h.replies);
      for (int i = 0; i < h.replies; i++) {
        errors.error(text);
      }
    }
    ByteBuf bytes = ctx.alloc().ioBuffer(errors.size());
    bytes.writeBytes(errors.buffer(), 0, errors.size());
    ctx.writeAndFlush(bytes, ctx.voidPromise());
    if (session.closing()) {
      ctx.close();
    }
  }

  /** A client that does not read its replies is cut off once they pass the output limit. */
  private void checkOutputLimit() {
    var outbound = ctx.channel().unsafe().outboundBuffer();
    if (outbound != null
        && outbound.totalPendingWriteBytes() > server.config().outputBufferLimit()) {
      server.stats().outputLimitDisconnects.increment();
      LOG.log(
          System.Logger.Level.WARNING,
          "closing client " + session.address() + ": output over client-output-buffer-limit");
      ctx.close();
      session.closeAfterReply();
      return;
    }
    if (!accountMemory(input.capacity(), out.capacity())) {
      server.clientMemory().evictedSelf(memory, "its unsent output holds the most of any client");
      ctx.close();
      session.closeAfterReply();
    }
  }

  /**
   * What commands may do to this connection from other threads ({@code MONITOR}'s lines, {@code
   * CLIENT KILL}). Netty runs a write or close from another thread as a task on this loop, so they
   * queue behind the batch in progress rather than interleave with it.
   */
  private final class Control implements dev.cellar.server.command.ClientChannel {
    private final ChannelHandlerContext ctx;
    private final ClientMemory.Account account;

    /** Bytes handed to {@link #deliver} and not yet written: queued on this loop. */
    private final java.util.concurrent.atomic.AtomicLong undelivered =
        new java.util.concurrent.atomic.AtomicLong();

    Control(ChannelHandlerContext ctx, ClientMemory.Account account) {
      this.ctx = ctx;
      this.account = account;
    }

    @Override
    public boolean canPush() {
      return true;
    }

    @Override
    public void push(byte[] bytes) {
      var outbound = ctx.channel().unsafe().outboundBuffer();
      if (outbound != null
          && outbound.totalPendingWriteBytes() > server.config().outputBufferLimit()) {
        // A monitor that does not read its feed is cut off like any client over its output limit.
        server.stats().outputLimitDisconnects.increment();
        ctx.channel().close();
        return;
      }
      server.sampler().netOutputBytes.add(bytes.length);
      ctx.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(bytes), ctx.voidPromise());
    }

    /**
     * Always queued on this loop, even from it: a write from the publisher's stack would overtake
     * deliveries already queued (see {@code PubSub}). The task runs after the batch in progress, so
     * a message never lands inside another command's reply; it goes out through {@link #writeOut},
     * behind output waiting for an fsync.
     */
    @Override
    public void deliver(
        long bytes, java.util.function.Consumer<dev.cellar.server.resp.ReplyWriter> message) {
      var outbound = ctx.channel().unsafe().outboundBuffer();
      long unsent = outbound == null ? 0 : outbound.totalPendingWriteBytes();
      if (undelivered.addAndGet(bytes) + unsent + heldBytes > server.config().outputBufferLimit()) {
        undelivered.addAndGet(-bytes);
        if (ctx.channel().isActive()) {
          server.stats().outputLimitDisconnects.increment();
          LOG.log(
              System.Logger.Level.WARNING,
              "closing client "
                  + session.address()
                  + ": messages published to it are over client-output-buffer-limit");
          ctx.channel().close();
        }
        return;
      }
      try {
        ctx.executor()
            .execute(
                () -> {
                  undelivered.addAndGet(-bytes);
                  if (!ctx.channel().isActive() || session.closing()) {
                    return;
                  }
                  message.accept(out);
                  writeOut();
                  ctx.flush();
                });
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        undelivered.addAndGet(-bytes); // the server is shutting down: nothing to deliver to
      }
    }

    /** Queued on this loop, as {@link #deliver} is. */
    @Override
    public void resume(java.util.function.Consumer<dev.cellar.server.resp.ReplyWriter> task) {
      try {
        ctx.executor()
            .execute(
                () -> {
                  if (!ctx.channel().isActive() || session.closing()) {
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
                  ctx.flush();
                  if (session.closing() && held.isEmpty()) {
                    ctx.close();
                  }
                });
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        // the server is shutting down
      }
    }

    @Override
    public void close() {
      ctx.channel().close();
    }

    @Override
    public void noEvict(boolean on) {
      account.noEvict(on);
    }

    @Override
    public int fd() {
      return ctx.channel() instanceof io.netty.channel.unix.UnixChannel unix
          ? unix.fd().intValue()
          : -1;
    }

    @Override
    public long memory() {
      return account.bytes();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof java.io.IOException) && session != null) {
      LOG.log(System.Logger.Level.WARNING, "connection " + session.address() + " failed", cause);
    }
    ctx.close();
  }
}
