package dev.cellar.bench.soak;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.function.BooleanSupplier;

/**
 * Pattern 3: a client that, once per cycle, authenticates and sends an MSET of {@value #PAIRS}
 * small pairs (about 1.4 MB) in {@value #PIECE}-byte writes, {@value #PIECES_PER_SECOND} a second
 * (about 7 s), then expects {@code +OK}. A server that parsed an incomplete request from its start
 * on every piece would spend time quadratic in its size; one that parses incrementally finishes it
 * within the cycle while serving everyone else. The keys are the same every time, so the store
 * gains {@value #PAIRS} keys once.
 *
 * <p>Owned by its own thread.
 */
final class TrickledMset implements Runnable {
  static final int PAIRS = 20_000;
  static final int PIECE = 50;
  static final int PIECES_PER_SECOND = 4_000;

  private final byte[] request = request();
  private final int port;
  private final String password;
  private final HostileSockets sockets;
  private final CycleClock clock;
  private final PatternCounters counters;
  private final LoadCounters problems;
  private final BooleanSupplier stopping;

  TrickledMset(
      int port,
      String password,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping) {
    this.port = port;
    this.password = password;
    this.sockets = sockets;
    this.clock = clock;
    this.counters = counters;
    this.problems = problems;
    this.stopping = stopping;
  }

  private static byte[] request() {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    wire.writeBytes(HostileSockets.ascii("*" + (1 + 2 * PAIRS) + "\r\n$4\r\nMSET\r\n"));
    String value = "t".repeat(50);
    for (int i = 0; i < PAIRS; i++) {
      String key = "soak:h:t:" + i;
      wire.writeBytes(
          HostileSockets.ascii(
              "$"
                  + key.length()
                  + "\r\n"
                  + key
                  + "\r\n$"
                  + value.length()
                  + "\r\n"
                  + value
                  + "\r\n"));
    }
    return wire.toByteArray();
  }

  @Override
  public void run() {
    clock.eachActiveCycle(stopping, () -> once(clock.activeEndNanos()));
  }

  private void once(long deadline) {
    counters.attempts().increment();
    Socket socket = null;
    try {
      socket = sockets.authenticated(port, password, 10_000, this::fail);
      if (socket == null) {
        return;
      }
      OutputStream out = socket.getOutputStream();
      long start = System.nanoTime();
      for (int at = 0, piece = 0; at < request.length; at += PIECE, piece++) {
        if (stopping.getAsBoolean()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          fail(
              "the MSET was still being sent when its cycle's active part ended, "
                  + at
                  + " of "
                  + request.length
                  + " bytes sent");
          return;
        }
        out.write(request, at, Math.min(PIECE, request.length - at));
        long due = start + piece * (1_000_000_000L / PIECES_PER_SECOND);
        long ahead = due - System.nanoTime();
        if (ahead > 2_000_000) {
          CycleClock.sleep(ahead / 1_000_000);
        }
      }
      String reply = HostileSockets.readLine(socket);
      if ("+OK".equals(reply)) {
        counters.completed().increment();
      } else if (reply == null || reply.startsWith("-")) {
        counters.disconnects().increment();
        fail("the trickled MSET was answered " + reply);
      } else {
        fail("the trickled MSET was answered " + reply);
      }
    } catch (IOException e) {
      fail(e.toString());
    } finally {
      if (socket != null) {
        sockets.reset(socket);
      }
    }
  }

  private void fail(String description) {
    counters.errors().increment();
    problems.problem("hostile " + counters.id() + ": " + description);
  }
}
