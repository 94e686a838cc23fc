package dev.cellar.bench.soak;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Pattern 4: up to {@value #CONNECTIONS} HTTP connections that send half their headers and then a
 * byte every half second, never the blank line that ends them. The server must close each at {@code
 * http-header-timeout} (10 s by default) without an answer; the client counts those closes, opens a
 * new connection in each one's place while the cycle's active part lasts, and resets the ones still
 * open when it ends. An answer of any kind is an error.
 *
 * <p>Owned by its own thread, which polls all its sockets in turn.
 */
final class Slowloris implements Runnable {
  static final int CONNECTIONS = 200;
  private static final int OPENED_PER_ROUND = 50;
  private static final byte[] HALF_HEADERS =
      HostileSockets.ascii("GET /v1/kv/soak:h:slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  private static final byte[] ONE_MORE = HostileSockets.ascii("s");

  private final int port;
  private final HostileSockets sockets;
  private final CycleClock clock;
  private final PatternCounters counters;
  private final LoadCounters problems;
  private final BooleanSupplier stopping;
  private final List<Socket> open = new ArrayList<>();

  Slowloris(
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
    try {
      while (clock.awaitActive(stopping)) {
        long roundEnd = System.nanoTime() + 500_000_000L;
        openMore();
        poll();
        long wait = roundEnd - System.nanoTime();
        if (wait > 0) {
          CycleClock.sleep(wait / 1_000_000);
        }
        if (!clock.active()) {
          resetAll();
        }
      }
    } finally {
      resetAll();
    }
  }

  private void openMore() {
    for (int i = 0; i < OPENED_PER_ROUND && open.size() < CONNECTIONS; i++) {
      counters.attempts().increment();
      try {
        Socket socket = sockets.open(port, 1);
        socket.getOutputStream().write(HALF_HEADERS);
        open.add(socket);
      } catch (IOException e) {
        counters.errors().increment();
        problems.problem("hostile " + counters.id() + ": " + e);
      }
    }
  }

  /** One more header byte to each connection, and a look at whether the server has closed it. */
  private void poll() {
    for (Iterator<Socket> it = open.iterator(); it.hasNext(); ) {
      Socket socket = it.next();
      try {
        int b = socket.getInputStream().read();
        if (b < 0) {
          counters.disconnects().increment();
        } else {
          counters.errors().increment();
          problems.problem(
              "hostile "
                  + counters.id()
                  + ": a connection with half its headers was answered ('"
                  + (char) b
                  + "'...)");
        }
        sockets.reset(socket);
        it.remove();
        continue;
      } catch (SocketTimeoutException stillOpen) {
        // the server is waiting for the rest of the headers
      } catch (IOException reset) {
        counters.disconnects().increment();
        sockets.reset(socket);
        it.remove();
        continue;
      }
      try {
        socket.getOutputStream().write(ONE_MORE);
      } catch (IOException closed) {
        // seen as closed on the next poll, or reset at the end of the active part
      }
    }
  }

  private void resetAll() {
    for (Socket socket : open) {
      sockets.reset(socket);
    }
    open.clear();
  }
}
