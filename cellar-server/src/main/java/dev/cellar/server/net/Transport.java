package dev.cellar.server.net;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

/**
 * The socket layer: Linux's io_uring or epoll through Netty's native transports, or the JDK's NIO
 * where neither loads. {@code auto} takes io_uring first: a loop iteration hands all its reads and
 * writes to the kernel in one {@code io_uring_enter}, where epoll costs a {@code read} and a {@code
 * write} per batch a connection sends, so syscalls per request fell 15 to 30 times, and pipelined
 * throughput was at least epoll's (measured side by side in docs/benchmarks.md). epoll stays the
 * fallback for kernels without io_uring or where it is switched off ({@code
 * kernel.io_uring_disabled}, container seccomp profiles).
 */
record Transport(
    String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel) {
  /** Linux's {@code TCP_CLOSE}: the state of a socket whose peer reset it. */
  private static final int TCP_CLOSE = 7;

  /** Whether {@code name} ("io_uring", "epoll" or "nio") loads on this machine. */
  static boolean available(String name) {
    return switch (name) {
      case "io_uring" -> IoUring.isAvailable();
      case "epoll" -> Epoll.isAvailable();
      case "nio" -> true;
      default -> throw new IllegalArgumentException("unknown transport " + name);
    };
  }

  /**
   * Whether the kernel has already closed {@code channel}'s socket (its peer reset it) although
   * Netty still holds it open; always false where the transport cannot tell (NIO).
   */
  static boolean closedByKernel(Channel channel) {
    return switch (channel) {
      case IoUringSocketChannel uring -> uring.tcpInfo().state() == TCP_CLOSE;
      case EpollSocketChannel epoll -> epoll.tcpInfo().state() == TCP_CLOSE;
      default -> false;
    };
  }

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
        throw new IllegalStateException(
            "io_uring is not available here: " + IoUring.unavailabilityCause());
      }
      return null;
    }
    return new Transport(
        "io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
  }

  private static Transport epoll(boolean required) {
    if (!Epoll.isAvailable()) {
      if (required) {
        throw new IllegalStateException(
            "epoll is not available here: " + Epoll.unavailabilityCause());
      }
      return null;
    }
    return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
  }

  private static Transport nio() {
    return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
  }
}
