package dev.cellar.server.net;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections whose socket the kernel has already closed while Netty still holds it open.
 *
 * <p>Why. On io_uring (Netty 4.2.18), a client that sends part of a request and resets the
 * connection (SO_LINGER 0) just as the server accepts it is, now and then, never seen to go: no
 * completion reports the reset, the channel stays active with its descriptor, and it counts against
 * {@code maxclients} for good. 3,000 such resets left 300 to 1,800 channels behind, and after about
 * 10,000 every new client was refused. epoll and NIO release them all. Most of these sockets are
 * already closed when the channel becomes active, and {@link RespConnection} closes those at once
 * ({@link Transport#closedByKernel}); a reset that lands between that check and Netty arming its
 * first poll is left for this sweep.
 *
 * <p>How. Every {@link #PERIOD_MILLIS} ms, each connection is checked on its own event loop with
 * one {@code getsockopt(TCP_INFO)}, and closed if the socket is in {@code TCP_CLOSE}. The cost is
 * one syscall per connection per period (10,000 idle connections: 5,000 syscalls a second, well
 * under 1% of a core). Rejected: Netty's one-shot polls instead of multishot ones ({@code
 * io.netty.iouring.pollAddMultishotEnabled=false}) also released every reset client, but a
 * connection the server closed itself (after a protocol error, {@code QUIT}, a full output buffer)
 * was then never closed, its client waiting for an end of stream that did not come.
 *
 * <p>Owned by the listener; the task runs on one event loop and hands each check to the loop that
 * owns the channel, since a channel's state belongs to its loop.
 */
final class DeadPeerSweep implements AutoCloseable {
  static final long PERIOD_MILLIS = 2000;

  private final ScheduledFuture<?> task;

  DeadPeerSweep(EventLoopGroup loops, List<? extends Iterable<Channel>> connections) {
    task =
        loops
            .next()
            .scheduleWithFixedDelay(
                () -> sweep(connections), PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  private static void sweep(List<? extends Iterable<Channel>> connections) {
    for (Iterable<Channel> group : connections) {
      for (Channel channel : group) {
        channel
            .eventLoop()
            .execute(
                () -> {
                  if (channel.isActive() && Transport.closedByKernel(channel)) {
                    channel.close();
                  }
                });
      }
    }
  }

  @Override
  public void close() {
    task.cancel(false);
  }
}
