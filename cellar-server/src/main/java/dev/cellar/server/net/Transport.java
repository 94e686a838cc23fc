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
 * where neither loads. {@code auto} takes io_uring first: a loop iteration hands all its reads and
 * writes to the kernel in one {@code io_uring_enter}, where epoll costs a {@code read} and a
 * {@code write} per batch a connection sends, so syscalls per request fell 15 to 30 times, and
 * pipelined throughput was at least epoll's (measured side by side in docs/benchmarks.md). epoll
 * stays the fallback for kernels without io_uring or where it is switched off
 * ({@code kernel.io_uring_disabled}, container seccomp profiles).
 */
record Transport(String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel) {

  static Transport choose(String requested) {
    return switch (requested) {
      case "io_uring" -> ioUring(true);
      case "epoll" -> epoll(true);
      case "nio" -> nio();
      default -> {
        Transport t = ioUring(false);
        if (t == null) {
          t = epoll(false);
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
