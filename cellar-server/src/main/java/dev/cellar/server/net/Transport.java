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
 *
 * <p>io_uring runs with multishot {@code POLL_ADD} off. With it on (Netty's default through 4.2.18),
 * a client that sends part of a request and then resets the connection before the server has read
 * it is never released: the poll that should report the reset ends without {@code POLLIN}, Netty
 * drops that completion, and the channel stays open with no read armed, its descriptor held for
 * good (1,000 such resets left 373 channels open; with one-shot polls, none). One-shot polls cost
 * one more submission-queue entry per read loop and no syscall, since the entry goes to the kernel
 * in the loop's one {@code io_uring_enter}. The switch is a Netty system property read once, when
 * its {@code IoUring} class initialises, so it is set here before anything touches that class; if
 * something did first, {@code auto} falls back to epoll and an explicit {@code io_uring} is refused,
 * rather than serving with a transport that leaks.
 */
record Transport(String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel) {
  private static final String POLL_MULTISHOT = "io.netty.iouring.pollAddMultishotEnabled";

  static {
    System.setProperty(POLL_MULTISHOT, "false");
  }

  /** Whether {@code name} ("io_uring", "epoll" or "nio") can serve on this machine, as {@link #choose} would find it. */
  static boolean available(String name) {
    return switch (name) {
      case "io_uring" -> ioUringProblem() == null;
      case "epoll" -> Epoll.isAvailable();
      case "nio" -> true;
      default -> throw new IllegalArgumentException("unknown transport " + name);
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

  /** Why io_uring cannot serve here, or null when it can. */
  private static String ioUringProblem() {
    if (!IoUring.isAvailable()) {
      return "io_uring is not available here: " + IoUring.unavailabilityCause();
    }
    if (IoUring.isPollAddMultishotEnabled()) {
      return "io_uring was initialised with multishot polls (" + POLL_MULTISHOT + "), which leak connections reset"
          + " mid-request; do not set that property, or choose transport epoll";
    }
    return null;
  }

  private static Transport ioUring(boolean required) {
    String problem = ioUringProblem();
    if (problem != null) {
      if (required) {
        throw new IllegalStateException(problem);
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
