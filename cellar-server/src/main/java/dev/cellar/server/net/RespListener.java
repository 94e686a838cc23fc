package dev.cellar.server.net;

import dev.cellar.Fsync;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.resp.RequestParser;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The listening sockets: RESP on {@code port}, HTTP on {@code http-port}, one event loop per
 * {@code io-threads}, each connection pinned to one loop for its life.
 */
public final class RespListener implements AutoCloseable {
  private final EventLoopGroup loops;
  private final Transport transport;
  private final Channel resp;
  private final Channel http;
  private final ChannelGroup clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final DurabilityBarrier barrier;
  private final ScheduledFuture<?> memoryRefresh;

  private RespListener(ServerContext server, Dispatcher dispatcher) {
    var config = server.config();
    transport = Transport.choose(config.transport());
    loops = new MultiThreadIoEventLoopGroup(config.threads(), Thread.ofPlatform().name("cellar-loop-", 0).factory(), transport.handlers());
    barrier = config.fsync() == Fsync.ALWAYS ? new DurabilityBarrier(server.store()) : null;
    try {
      ServerBootstrap bootstrap = new ServerBootstrap()
          .group(loops)
          .channel(transport.serverChannel())
          .option(ChannelOption.SO_BACKLOG, 1024)
          .option(ChannelOption.SO_REUSEADDR, true)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.SO_KEEPALIVE, true)
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              clients.add(ch);
              ch.pipeline().addLast(new RespConnection(server, dispatcher, new RequestParser(config.maxBulkLength()), barrier));
            }
          });
      resp = bootstrap.bind(new InetSocketAddress(config.bind(), config.port())).syncUninterruptibly().channel();
      http = config.httpPort() == 0 ? null
          : dev.cellar.server.http.HttpEndpoint.bind(server, loops, transport.serverChannel(), config.bind(), config.httpPort());
    } catch (RuntimeException e) {
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      if (barrier != null) {
        barrier.close();
      }
      throw new IllegalStateException("cannot listen on " + config.bind() + ":" + config.port() + " (" + e.getMessage() + ")", e);
    }
    memoryRefresh = loops.next().scheduleAtFixedRate(server.memory()::refresh, 100, 100, TimeUnit.MILLISECONDS);
  }

  public static RespListener start(ServerContext server, Dispatcher dispatcher) {
    return new RespListener(server, dispatcher);
  }

  public int port() {
    return ((InetSocketAddress) resp.localAddress()).getPort();
  }

  public int httpPort() {
    return http == null ? 0 : ((InetSocketAddress) http.localAddress()).getPort();
  }

  public String transport() {
    return transport.name();
  }

  /** Stops accepting, lets connections finish their current batch, then stops the loops. */
  @Override
  public void close() {
    memoryRefresh.cancel(false);
    resp.close().syncUninterruptibly();
    if (http != null) {
      http.close().syncUninterruptibly();
    }
    if (barrier != null) {
      // Held replies go out only after their fsync: give the barrier its last round first.
      barrier.drain();
    }
    clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    if (barrier != null) {
      barrier.close();
    }
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
