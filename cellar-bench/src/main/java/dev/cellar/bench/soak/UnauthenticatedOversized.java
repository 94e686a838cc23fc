package dev.cellar.bench.soak;

import java.io.IOException;
import java.net.Socket;
import java.util.function.BooleanSupplier;

/**
 * Pattern 5: with {@code requirepass}, a client that has not authenticated sends a request over the
 * limits Redis 7.2 sets before AUTH, {@value #PER_SECOND} times a second: alternately a
 * 100-argument header and a SET announcing a 10 MB value (the first 1 KiB of it sent). The server
 * must answer {@code -ERR Protocol error: unauthenticated ...} and close the connection.
 *
 * <p>Owned by its own thread.
 */
final class UnauthenticatedOversized implements Runnable {
  static final int PER_SECOND = 5;
  private static final byte[] MANY_ARGUMENTS = HostileSockets.ascii("*100\r\n$3\r\nSET\r\n");
  private static final byte[] LARGE_BULK =
      HostileSockets.ascii(
          "*3\r\n$3\r\nSET\r\n$9\r\nsoak:h:un\r\n$10000000\r\n" + "u".repeat(1024));

  private final int port;
  private final HostileSockets sockets;
  private final CycleClock clock;
  private final PatternCounters counters;
  private final LoadCounters problems;
  private final BooleanSupplier stopping;

  /** Attempts so far: even ones send too many arguments, odd ones too large a bulk. */
  private long attempt;

  UnauthenticatedOversized(
      int port,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping) {
    this.port = port;
    this.sockets = sockets;
    this.clock = clock;
    this.counters = counters;
    this.problems = problems;
    this.stopping = stopping;
  }

  @Override
  public void run() {
    clock.atRate(stopping, PER_SECOND, this::once);
  }

  private void once() {
    counters.attempts().increment();
    Socket socket = null;
    try {
      socket = sockets.open(port, 10_000);
      socket.getOutputStream().write(attempt++ % 2 == 0 ? MANY_ARGUMENTS : LARGE_BULK);
      String reply = HostileSockets.readLine(socket);
      if (reply != null && reply.startsWith("-ERR Protocol error: unauthenticated")) {
        counters.completed().increment();
        if (closedByServer(socket)) {
          counters.disconnects().increment();
        } else {
          fail("the connection stayed open after " + reply);
        }
      } else {
        fail("expected -ERR Protocol error: unauthenticated ..., got " + reply);
      }
    } catch (IOException e) {
      fail(e.toString());
    } finally {
      if (socket != null) {
        sockets.reset(socket);
      }
    }
  }

  /** Whether the stream ends (or is reset: the server closed with part of the request unread). */
  private static boolean closedByServer(Socket socket) {
    try {
      return socket.getInputStream().read() < 0;
    } catch (IOException reset) {
      return !(reset instanceof java.net.SocketTimeoutException);
    }
  }

  private void fail(String description) {
    counters.errors().increment();
    problems.problem("hostile " + counters.id() + ": " + description);
  }
}
