package dev.cellar.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The hostile clients that run beside the soak's load: each pattern of docs/server.md's "Hostile
 * clients" and docs/http.md's "Threads and limits", on its own threads, bounded in rate and count
 * (see each class), only against the server on 127.0.0.1, in the active part of every cycle (see
 * {@link CycleClock}).
 *
 * <p>Owned by the soak's main thread; the pattern threads share only their counters and {@link
 * HostileSockets}.
 */
final class HostileLoad {
  /** Seconds before each live-heap reading in which no hostile client is connected. */
  static final long QUIET_SECONDS = 4;

  final PatternCounters respReset =
      new PatternCounters(
          "resp_reset_mid_request",
          "RESP: connect, send part of a SET, reset (SO_LINGER 0); "
              + ResetMidRequest.PER_SECOND
              + "/s",
          false,
          false);
  final PatternCounters httpReset =
      new PatternCounters(
          "http_reset_mid_request",
          "HTTP: connect, send part of a PUT, reset; " + ResetMidRequest.PER_SECOND + "/s",
          false,
          false);
  final PatternCounters stalledMset =
      new PatternCounters(
          "stalled_large_mset",
          StalledLargeMset.CLIENTS
              + " clients each send "
              + (StalledLargeMset.PAIRS - 4)
              + " MB of a "
              + StalledLargeMset.PAIRS
              + " MB MSET and stall; once a cycle; must be cut off by maxmemory-clients",
          true,
          false);
  final PatternCounters trickledMset =
      new PatternCounters(
          "trickled_mset",
          "an MSET of "
              + TrickledMset.PAIRS
              + " pairs (1.4 MB) in "
              + TrickledMset.PIECE
              + "-byte writes, "
              + TrickledMset.PIECES_PER_SECOND
              + "/s; once a cycle; must complete",
          false,
          true);
  final PatternCounters slowloris =
      new PatternCounters(
          "http_slowloris",
          "up to "
              + Slowloris.CONNECTIONS
              + " HTTP connections with half their headers, a byte every 0.5 s; must be closed at http-header-timeout",
          true,
          false);
  final PatternCounters unauthenticated =
      new PatternCounters(
          "unauthenticated_oversized",
          "before AUTH: 100 arguments, or a 10 MB bulk; "
              + UnauthenticatedOversized.PER_SECOND
              + "/s; must be refused and closed",
          true,
          true);

  private final HostileSockets sockets = new HostileSockets();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  HostileLoad(int port, int httpPort, String password, CycleClock clock, LoadCounters problems) {
    List<Runnable> clients = new ArrayList<>();
    clients.add(ResetMidRequest.resp(port, sockets, clock, respReset, problems, () -> stopping));
    clients.add(
        ResetMidRequest.http(httpPort, sockets, clock, httpReset, problems, () -> stopping));
    byte[] mostOfMset = StalledLargeMset.mostOfRequest();
    for (int i = 0; i < StalledLargeMset.CLIENTS; i++) {
      clients.add(
          new StalledLargeMset(
              mostOfMset, port, password, sockets, clock, stalledMset, problems, () -> stopping));
    }
    clients.add(
        new TrickledMset(port, password, sockets, clock, trickledMset, problems, () -> stopping));
    clients.add(new Slowloris(httpPort, sockets, clock, slowloris, problems, () -> stopping));
    clients.add(
        new UnauthenticatedOversized(
            port, sockets, clock, unauthenticated, problems, () -> stopping));
    for (int i = 0; i < clients.size(); i++) {
      threads.add(Thread.ofPlatform().name("soak-hostile-" + i).daemon().unstarted(clients.get(i)));
    }
  }

  List<PatternCounters> patterns() {
    return List.of(respReset, httpReset, stalledMset, trickledMset, slowloris, unauthenticated);
  }

  void start() {
    threads.forEach(Thread::start);
  }

  /**
   * Stops every hostile client and closes its sockets; a write blocked on a server that stopped
   * reading is unblocked by the reset.
   */
  void stop() throws InterruptedException {
    stopping = true;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    sockets.resetAll();
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
