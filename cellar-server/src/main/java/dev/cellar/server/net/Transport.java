package dev.cellar.server.net;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;

/**
 * The socket layer: Linux's io_uring or epoll through Netty's native transports, or the JDK's NIO
 * where neither loads. {@code auto} takes epoll first: on the machines we measured it served
 * request/reply traffic faster than io_uring (see {@code docs/benchmarks.md}).
 */
record Transport(String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel) {

  static Transport choose(String requested) {
    return switch (requested) {
      case "io_uring" -> ioUring(true);
      case "epoll" -> epoll(true);
      case "nio" -> nio();
      default -> {
        Transport t = epoll(false);
        if (t == null) {
          t = ioUring(false);
        }
        yield t != null ? t : nio();
      }
    };
  }

  private static Transport ioUring(boolean required) {
    if (!IoUring.isAvailable()) {
      if (required) {
        throw new IllegalStateException("io_uring is not available here: " + IoUring.unavailabilityCause());
      }
      return null;
    }
    return new Transport("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
  }

  private static Transport epoll(boolean required) {
    if (!Epoll.isAvailable()) {
      if (required) {
        throw new IllegalStateException("epoll is not available here: " + Epoll.unavailabilityCause());
      }
      return null;
    }
    return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
  }

  private static Transport nio() {
    return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
  }
}
