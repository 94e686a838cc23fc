package dev.cellar.server.http;

import dev.cellar.server.command.ClientMemory;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One HTTP connection: its requests are answered one at a time, in order, by the {@link HttpRouter}
 * on an HTTP worker thread, never on the event loop (see {@link HttpEndpoint}).
 *
 * <p>Concurrency. {@link #waiting} and {@link #answering} belong to the connection's event loop. A
 * request is handed to a worker with reading paused ({@code autoRead} off), so a client cannot
 * queue work faster than it is done; requests the codec had already decoded from the same read wait
 * in {@link #waiting}. The worker writes the answer; the write's completion, back on the loop,
 * starts the next request or resumes reading.
 *
 * <p>A request the codec could not read (request line or headers over their limits, bad syntax) or
 * whose body is over the limit ({@link BodyAggregator}) arrives with a failed decoder result; it is
 * answered with the matching JSON error, and the connection closed unless it is still in a clean
 * state.
 */
final class HttpConnection extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final HttpRouter router;
  private final Executor workers;
  private final ClientMemory clientMemory;
  private final ClientMemory.Account memory;
  private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
  private boolean answering;

  HttpConnection(
      HttpRouter router, Executor workers, ClientMemory clientMemory, ClientMemory.Account memory) {
    this.router = router;
    this.workers = workers;
    this.clientMemory = clientMemory;
    this.memory = memory;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    waiting.add(request);
    if (!answering) {
      next(ctx);
    }
  }

  /** On the loop: hands the next waiting request to a worker, or resumes reading. */
  private void next(ChannelHandlerContext ctx) {
    if (!ctx.channel().isActive()) {
      releaseWaiting();
      return;
    }
    FullHttpRequest request = waiting.poll();
    answering = request != null;
    ctx.channel().config().setAutoRead(request == null);
    if (request == null) {
      return;
    }
    try {
      workers.execute(() -> answer(ctx, request));
    } catch (RejectedExecutionException e) {
      request.release();
      write(
          ctx,
          HttpReply.error(
              503, "unavailable", "the server is shutting down; retry elsewhere or later"),
          false);
    }
  }

  /** On a worker. */
  private void answer(ChannelHandlerContext ctx, FullHttpRequest request) {
    HttpReply reply;
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    try {
      if (request.decoderResult().isFailure()) {
        Throwable cause = request.decoderResult().cause();
        reply = unreadable(cause);
        keepAlive &= cause instanceof BodyAggregator.BodyTooLarge;
      } else {
        // The body stays in Netty's buffer: the router reads it as a segment while this call runs.
        MemorySegment body = MemorySegment.ofBuffer(request.content().nioBuffer());
        reply =
            router.route(
                new HttpCall(request.method().name(), request.uri(), request.headers()::get, body));
      }
    } finally {
      request.release();
      clientMemory.set(memory, 0); // one request at a time: its body was all this connection held
    }
    write(ctx, reply, keepAlive);
  }

  private void write(ChannelHandlerContext ctx, HttpReply reply, boolean keepAlive) {
    ChannelFuture written = ctx.writeAndFlush(response(reply, keepAlive));
    written.addListener(
        keepAlive ? (ChannelFutureListener) done -> next(ctx) : ChannelFutureListener.CLOSE);
  }

  private static HttpReply unreadable(Throwable cause) {
    return switch (cause) {
      case BodyAggregator.BodyTooLarge large ->
          HttpReply.error(413, "too_large", large.getMessage());
      case TooLongHttpLineException line ->
          HttpReply.error(
              414,
              "too_large",
              "the request line is too long: "
                  + line.getMessage()
                  + "; keys are at most 64 KiB (each byte may take three characters)");
      case TooLongHttpHeaderException headers ->
          HttpReply.error(431, "too_large", "the headers are too large: " + headers.getMessage());
      case TooLongFrameException frame -> HttpReply.error(413, "too_large", frame.getMessage());
      default ->
          HttpReply.error(400, "bad_request", "malformed HTTP request: " + cause.getMessage());
    };
  }

  static FullHttpResponse response(HttpReply reply, boolean keepAlive) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(reply.status()),
            Unpooled.wrappedBuffer(reply.body()));
    if (reply.contentType() != null) {
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
    }
    if (reply.status() != 204) {
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
    }
    reply.headers().forEach(response.headers()::set);
    HttpUtil.setKeepAlive(response, keepAlive);
    return response;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseWaiting();
    ctx.fireChannelInactive();
  }

  private void releaseWaiting() {
    FullHttpRequest request;
    while ((request = waiting.poll()) != null) {
      request.release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(
        System.Logger.Level.DEBUG,
        "HTTP connection " + ctx.channel().remoteAddress() + " closed: " + cause);
    ctx.close();
  }
}
