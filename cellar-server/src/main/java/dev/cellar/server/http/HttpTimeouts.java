package dev.cellar.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The two clocks of an HTTP connection: how long it may sit idle between requests ({@code
 * http-idle-timeout}) and how long a request's line and headers may take to arrive once its first
 * byte has ({@code http-header-timeout}). Either running out closes the connection. Without them,
 * 1,000 connections that each sent half a header stayed open for good (a slowloris attack).
 *
 * <p>States: idle (after the connection opens, and after each answer is written) until a byte
 * arrives; then reading headers until the codec hands on the request line and headers; then no
 * clock while the body arrives and the answer is made (the body is bounded by {@code
 * proto-max-bulk-len} and {@code maxmemory-clients}, and a worker may take long over a scan).
 *
 * <p>Two handlers share the state: {@link #bytes()} before the HTTP codec sees the first byte of a
 * request; {@link #messages()} after it sees the decoded request and the answer going out. All on
 * the connection's event loop.
 */
final class HttpTimeouts {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private enum State {
    IDLE,
    HEADERS,
    ANSWERING
  }

  private final long idleMillis;
  private final long headerMillis;
  private State state = State.IDLE;
  private ScheduledFuture<?> clock;

  HttpTimeouts(long idleMillis, long headerMillis) {
    this.idleMillis = idleMillis;
    this.headerMillis = headerMillis;
  }

  ChannelInboundHandlerAdapter bytes() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx, State.IDLE);
        ctx.fireChannelActive();
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.IDLE && msg instanceof ByteBuf buf && buf.isReadable()) {
          arm(ctx, State.HEADERS);
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
      }
    };
  }

  ChannelDuplexHandler messages() {
    return new ChannelDuplexHandler() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
          stop();
          state = State.ANSWERING;
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) { // a whole answer (FullHttpResponse is one too)
          ctx.write(msg, promise.unvoid())
              .addListener(
                  (ChannelFutureListener)
                      done -> {
                        if (state == State.ANSWERING && done.channel().isActive()) {
                          arm(ctx, State.IDLE);
                        }
                      });
          return;
        }
        ctx.write(msg, promise);
      }
    };
  }

  private void arm(ChannelHandlerContext ctx, State next) {
    stop();
    state = next;
    long millis = next == State.IDLE ? idleMillis : headerMillis;
    if (millis <= 0) {
      return;
    }
    clock =
        ctx.executor()
            .schedule(
                () -> {
                  LOG.log(
                      System.Logger.Level.DEBUG,
                      "closing HTTP connection "
                          + ctx.channel().remoteAddress()
                          + ": "
                          + (next == State.IDLE
                              ? "idle past http-idle-timeout"
                              : "headers not complete within http-header-timeout"));
                  ctx.close();
                },
                millis,
                TimeUnit.MILLISECONDS);
  }

  private void stop() {
    if (clock != null) {
      clock.cancel(false);
      clock = null;
    }
  }
}
