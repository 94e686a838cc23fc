package dev.cellar.bench.soak;

import java.io.IOException;
import java.net.Socket;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Pattern 1: a client that connects, sends part of a request (a random prefix: inside the header or
 * inside the body) and resets the connection, {@value #PER_SECOND} times a second. The server must
 * release each one; the end-of-run connection count shows whether it did.
 *
 * <p>Owned by its own thread.
 */
final class ResetMidRequest implements Runnable {
  static final int PER_SECOND = 20;

  private final byte[] request;
  private final int port;
  private final HostileSockets sockets;
  private final CycleClock clock;
  private final PatternCounters counters;
  private final LoadCounters problems;
  private final BooleanSupplier stopping;
  private final SplittableRandom random;

  private ResetMidRequest(
      byte[] request,
      int port,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping,
      long seed) {
    this.request = request;
    this.port = port;
    this.sockets = sockets;
    this.clock = clock;
    this.counters = counters;
    this.problems = problems;
    this.stopping = stopping;
    this.random = new SplittableRandom(seed);
  }

  /** A SET of a 10,000-byte value (under the 16 KiB an unauthenticated client may send). */
  static ResetMidRequest resp(
      int port,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping) {
    byte[] request = HostileSockets.command("SET", "soak:h:reset", "r".repeat(10_000));
    return new ResetMidRequest(request, port, sockets, clock, counters, problems, stopping, 1);
  }

  /** A PUT of a 10,000-byte body. */
  static ResetMidRequest http(
      int port,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping) {
    byte[] request =
        HostileSockets.ascii(
            "PUT /v1/kv/soak:h:reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000\r\n\r\n"
                + "r".repeat(10_000));
    return new ResetMidRequest(request, port, sockets, clock, counters, problems, stopping, 2);
  }

  @Override
  public void run() {
    clock.atRate(stopping, PER_SECOND, this::once);
  }

  private void once() {
    counters.attempts().increment();
    Socket socket = null;
    try {
      socket = sockets.open(port, 5_000);
      socket.getOutputStream().write(request, 0, 1 + random.nextInt(request.length - 1));
      CycleClock.sleep(random.nextInt(20));
    } catch (IOException e) {
      counters.errors().increment();
      problems.problem("hostile " + counters.id() + ": " + e);
    } finally {
      if (socket != null) {
        sockets.reset(socket);
      }
    }
  }
}
