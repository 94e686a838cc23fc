package dev.cellar.server.net;

import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.http.HttpEndpoint;
import dev.cellar.server.resp.RequestParser;
import dev.cellar.server.tls.ServerTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.ThreadPerTaskExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The listening sockets: RESP on {@code port} and, with TLS, on {@code tls-port}; HTTP on {@code
 * http-port} and HTTPS on {@code https-port}. One event loop per {@code io-threads} serves them
 * all, each connection pinned to one loop for its life. A TLS port's connections get the plaintext
 * pipeline behind an {@code SslHandler} ({@link ServerTls}).
 *
 * <p>{@code port 0} means "any free port", except when {@code tls-port} is set: then, as in Redis,
 * it turns plaintext RESP off.
 */
public final class RespListener implements AutoCloseable {
  private final EventLoopGroup loops;
  private final ServerContext server;
  private final Transport transport;
  private final Dispatcher dispatcher;

  /** Plaintext RESP's listening channel; replaced by {@code CONFIG SET port}, null when off. */
  private volatile Channel resp;

  /**
   * Where every port accepts connections: a thread of its own, not one of the event loops, so that
   * a loop held by a running script neither stops new connections from being accepted nor keeps
   * {@code CONFIG SET port}, which runs on a loop and waits for its bind, from binding.
   */
  private final EventLoopGroup acceptor;

  /** Set by {@link #close}: a {@code CONFIG SET port} after it binds nothing. */
  private boolean closing;

  private final Channel respTls;
  private final Channel http;
  private final Channel https;
  private final HttpEndpoint httpEndpoint;
  private final ChannelGroup clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final DurableReplies barrier;

  /** Same-host clients over shared memory; null when {@code ipc} is off or unavailable. */
  private final ShmEndpoint shm;

  private final ScheduledFuture<?> memoryRefresh;
  private final ScheduledFuture<?> statsSample;
  private final ScheduledFuture<?> expirySweep;
  private final ScheduledFuture<?> orphanSweep;
  private final DeadPeerSweep deadPeers;

  /**
   * The event loops' threads are Netty's own kind: on any other thread its recycler pools nothing
   * (one outbound-buffer entry allocated per write) and its allocator takes buffers from magazines
   * shared between threads instead of the loop's own.
   */
  private static ThreadFactory loopThreads() {
    AtomicInteger next = new AtomicInteger();
    return task -> new FastThreadLocalThread(task, "cellar-loop-" + next.getAndIncrement());
  }

  private RespListener(ServerContext server, Dispatcher dispatcher, ServerTls tls) {
    this.server = server;
    this.dispatcher = dispatcher;
    ServerConfig config = server.config();
    transport = Transport.choose(config.transport());
    loops =
        new MultiThreadIoEventLoopGroup(
            config.threads(),
            new ThreadPerTaskExecutor(loopThreads()),
            new FreeLoopChooser(server::scriptRunsOn),
            transport.handlers());
    acceptor =
        new MultiThreadIoEventLoopGroup(
            1,
            (ThreadFactory) task -> new FastThreadLocalThread(task, "cellar-accept"),
            transport.handlers());
    barrier = server.store().durableOnReturn() ? null : new DurableReplies(server.databases());
    boolean httpOn = config.httpPort() != 0 || config.httpsPort() != 0;
    httpEndpoint = httpOn ? new HttpEndpoint(server) : null;
    // Before the ports: a client that finds the port answering finds shared memory ready too.
    shm = ShmEndpoint.start(server, dispatcher, barrier);
    List<Channel> bound = new ArrayList<>();
    try {
      resp =
          config.port() == 0 && config.tlsPort() != 0
              ? null
              : bound(bound, respChannel(config.port(), null));
      respTls = config.tlsPort() == 0 ? null : bound(bound, respChannel(config.tlsPort(), tls));
      http =
          config.httpPort() == 0
              ? null
              : bound(
                  bound,
                  httpEndpoint.listen(
                      acceptor,
                      loops,
                      transport.serverChannel(),
                      config.bind(),
                      config.httpPort(),
                      null));
      https =
          config.httpsPort() == 0
              ? null
              : bound(
                  bound,
                  httpEndpoint.listen(
                      acceptor,
                      loops,
                      transport.serverChannel(),
                      config.bind(),
                      config.httpsPort(),
                      tls));
    } catch (RuntimeException e) {
      bound.forEach(c -> c.close().syncUninterruptibly());
      if (shm != null) {
        shm.close();
      }
      if (httpEndpoint != null) {
        httpEndpoint.close();
      }
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      throw e;
    }
    memoryRefresh =
        loops.next().scheduleAtFixedRate(server.memory()::refresh, 100, 100, TimeUnit.MILLISECONDS);
    statsSample =
        loops.next().scheduleAtFixedRate(server.sampler()::sample, 100, 100, TimeUnit.MILLISECONDS);
    expirySweep =
        loops.next().scheduleWithFixedDelay(server::sweepExpired, 100, 100, TimeUnit.MILLISECONDS);
    // On an event loop, as commands run: with one loop, key locks are off and this is how the
    // sweep stays apart from commands.
    orphanSweep =
        loops.next().scheduleWithFixedDelay(server::sweepOrphans, 150, 100, TimeUnit.MILLISECONDS);
    deadPeers =
        new DeadPeerSweep(
            loops,
            httpEndpoint == null ? List.of(clients) : List.of(clients, httpEndpoint.connections()));
  }

  private static Channel bound(List<Channel> bound, Channel channel) {
    bound.add(channel);
    return channel;
  }

  private Channel respChannel(int port, ServerTls tls) {
    ServerConfig config = server.config();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptor, loops)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            // No TCP_NODELAY option: every transport's channel turns it on when created (Netty's
            // default on Linux), and asking again cost one more setsockopt per connection.
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    clients.add(ch);
                    if (tls != null) {
                      tls.addTo(ch);
                    }
                    ch.pipeline()
                        .addLast(
                            new RespConnection(
                                server,
                                dispatcher,
                                new RequestParser(config.maxBulkLength()),
                                barrier));
                  }
                });
    try {
      return bootstrap
          .bind(new InetSocketAddress(config.bind(), port))
          .syncUninterruptibly()
          .channel();
    } catch (Exception e) { // a native transport's bind fails with an undeclared IOException
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException(
          "cannot listen"
              + (tls == null ? "" : " for TLS")
              + " on "
              + config.bind()
              + ":"
              + port
              + " ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /**
   * Starts listening; {@code tls} (null without {@code tls-port} and {@code https-port}) is built
   * and checked already.
   */
  public static RespListener start(ServerContext server, Dispatcher dispatcher, ServerTls tls) {
    return new RespListener(server, dispatcher, tls);
  }

  /**
   * The plaintext RESP port; 0 when plaintext RESP is off ({@code port 0} with {@code tls-port}).
   */
  public int port() {
    return portOf(resp);
  }

  public int tlsPort() {
    return portOf(respTls);
  }

  /**
   * Moves plaintext RESP to {@code port} ({@code CONFIG SET port}), as Redis does: the new port is
   * bound first and the old one closed only then, so a port that cannot be had leaves the server
   * listening where it was; connections already made stay. Port 0 stops plaintext RESP, as in Redis
   * (at start-up it asks for any free port instead).
   *
   * @throws IllegalStateException if {@code port} cannot be bound
   */
  public synchronized void listenOn(int port) {
    if (closing) {
      throw new IllegalStateException("the server is shutting down");
    }
    Channel old = resp;
    Channel replacement = null;
    if (port != 0) {
      replacement = respChannel(port, null);
    }
    resp = replacement;
    if (old != null) {
      // On the acceptor's thread, never a loop's: waited for, so the reply finds it closed.
      old.close().syncUninterruptibly();
    }
  }

  public int httpPort() {
    return portOf(http);
  }

  public int httpsPort() {
    return portOf(https);
  }

  private static int portOf(Channel channel) {
    return channel == null ? 0 : ((InetSocketAddress) channel.localAddress()).getPort();
  }

  public String transport() {
    return transport.name();
  }

  /** The shared-memory endpoint's discovery file, or null when it is off. */
  public java.nio.file.Path ipcDiscovery() {
    return shm == null ? null : shm.discoveryPath();
  }

  /** Stops accepting, lets connections finish their current batch, then stops the loops. */
  @Override
  public void close() {
    // A runaway script keeps its event loop forever, and closing a channel registered there, or
    // waiting for the loops, would wait with it: kill scripts first, and again before waiting for
    // the loops in case a request still in flight started one.
    server.killScripts();
    memoryRefresh.cancel(false);
    statsSample.cancel(false);
    expirySweep.cancel(false);
    orphanSweep.cancel(false);
    deadPeers.close();
    Channel plain;
    synchronized (this) {
      // Not waited on under the lock: a CONFIG SET port waiting for it holds an event loop.
      closing = true;
      plain = resp;
    }
    for (Channel listening : new Channel[] {plain, respTls, http, https}) {
      if (listening != null) {
        listening.close().syncUninterruptibly();
      }
    }
    if (httpEndpoint != null) {
      httpEndpoint.close();
    }
    if (barrier != null) {
      // Held replies go out only after their fsync: give the barrier its last round first.
      barrier.drain();
    }
    if (shm != null) {
      shm.close();
    }
    if (barrier != null) {
      // Held replies go out only after their fsync: give the barrier its last round first.
      barrier.drain();
    }
    clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    server.killScripts();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
