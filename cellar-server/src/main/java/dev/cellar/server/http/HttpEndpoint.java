package dev.cellar.server.http;

import dev.cellar.server.command.ClientMemory;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.metrics.ServerMetrics;
import dev.cellar.server.tls.ServerTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP interface on {@code http-port} (and HTTPS on {@code https-port}): key-value, scan, info,
 * health and Prometheus metrics (see {@code docs/http.md}).
 *
 * <p>Threads. Sockets are served by the RESP listener's event loops (one HTTP connection costs no
 * thread), but requests run on a small pool of HTTP worker threads. An HTTP request can take long:
 * a scan page reads every key under its prefix, {@code appendfsync always} waits for an fsync; on
 * an event loop that would stall every RESP connection sharing the loop. The pool is bounded (2 to
 * 4 threads) so that concurrent scans cannot take every core from the loops; a connection has one
 * request at a time in the pool and is not read meanwhile ({@link HttpConnection}). Rejected
 * alternatives: Netty's per-handler executor group (no backpressure, and at shutdown its
 * connections' teardown raced the loops' termination) and virtual threads (unbounded CPU-bound
 * scans).
 *
 * <p>Pipeline: TLS on the HTTPS port ({@link ServerTls}), {@link HttpTimeouts}' byte side, {@link
 * HttpServerCodec} (request line up to 200 KiB, enough for a 64 KiB key percent-encoded whole),
 * {@link HttpTimeouts}' message side, {@link BodyAggregator} (body up to {@code
 * proto-max-bulk-len}), then {@link HttpConnection}, which hands requests to the workers. A
 * connection over {@code http-maxclients} gets only the codec and a 503.
 *
 * <p>Metrics are created here, since only HTTP serves them; with HTTP off the command path records
 * no latency at all.
 */
public final class HttpEndpoint implements AutoCloseable {
  private static final int MAX_REQUEST_LINE = 200 * 1024;
  private static final int MAX_HEADERS = 16 * 1024;
  private static final int MAX_WORKERS = 4;

  private final ServerContext server;
  private final HttpRouter router;
  private final ExecutorService pool;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  /** The router, metrics and worker pool, shared by the HTTP and HTTPS ports. */
  public HttpEndpoint(ServerContext server) {
    this.server = server;
    this.router = new HttpRouter(server, new ServerMetrics(server));
    int workers = Math.clamp(server.config().threads(), 2, MAX_WORKERS);
    this.pool =
        Executors.newFixedThreadPool(
            workers, Thread.ofPlatform().name("cellar-http-", 0).daemon().factory());
  }

  /**
   * Binds {@code host:port}, accepting on {@code acceptor} and serving connections on {@code
   * loops}, and returns the listening channel; with {@code tls} (HTTPS) each connection's pipeline
   * starts with TLS.
   */
  public Channel listen(
      EventLoopGroup acceptor,
      EventLoopGroup loops,
      Class<? extends ServerChannel> channelClass,
      String host,
      int port,
      ServerTls tls) {
    try {
      return new ServerBootstrap()
          .group(acceptor, loops)
          .channel(channelClass)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .option(ChannelOption.SO_REUSEADDR, true)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(
              new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                  connections.add(ch);
                  if (tls != null) {
                    tls.addTo(ch);
                  }
                  HttpServerCodec codec =
                      new HttpServerCodec(
                          new HttpDecoderConfig()
                              .setMaxInitialLineLength(MAX_REQUEST_LINE)
                              .setMaxHeaderSize(MAX_HEADERS));
                  if (connections.size() > server.config().httpMaxClients()) {
                    ch.pipeline().addLast(codec).addLast(refusal(server.config().httpMaxClients()));
                    return;
                  }
                  // Bodies being received count against maxmemory-clients, as RESP's buffers do.
                  ClientMemory.Account memory =
                      server.clientMemory().open("http " + ch.remoteAddress(), ch::close);
                  ch.closeFuture().addListener(closed -> server.clientMemory().close(memory));
                  HttpTimeouts timeouts =
                      new HttpTimeouts(
                          server.config().httpIdleTimeout() * 1000L,
                          server.config().httpHeaderTimeout() * 1000L);
                  ch.pipeline()
                      .addLast(timeouts.bytes())
                      .addLast(codec)
                      .addLast(timeouts.messages())
                      .addLast(new BodyAggregator(maxBody(server), server.clientMemory(), memory))
                      .addLast(new HttpConnection(router, pool, server.clientMemory(), memory));
                }
              })
          .bind(new InetSocketAddress(host, port))
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot listen for "
              + (tls == null ? "HTTP" : "HTTPS")
              + " on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** The open HTTP and HTTPS connections. */
  public Iterable<Channel> connections() {
    return connections;
  }

  /**
   * Closes the connections and stops the workers, after the listening channels are closed. Requests
   * in progress finish (their answers go nowhere once the connections are closed).
   */
  @Override
  public void close() {
    connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    pool.shutdown();
  }

  /** Answers a connection over {@code http-maxclients} with 503 and closes it. */
  private static ChannelInboundHandlerAdapter refusal(int max) {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        HttpReply reply =
            HttpReply.error(
                503,
                "unavailable",
                "too many HTTP connections (http-maxclients " + max + "); retry later");
        ctx.writeAndFlush(HttpConnection.response(reply, false))
            .addListener(ChannelFutureListener.CLOSE);
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
      }
    };
  }

  /**
   * proto-max-bulk-len as the aggregator's int limit, read per connection so CONFIG SET applies to
   * new ones.
   */
  private static int maxBody(ServerContext server) {
    return (int) Math.min(server.config().maxBulkLength(), Integer.MAX_VALUE - 8);
  }
}
