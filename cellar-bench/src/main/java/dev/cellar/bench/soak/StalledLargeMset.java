package dev.cellar.bench.soak;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * Pattern 2: one of {@value #CLIENTS} clients that, at the start of every cycle's active part,
 * authenticate, send all but the last 4 MiB of a {@value #PAIRS} MiB MSET and stall until the
 * active part ends, then reset. Together they hold about 310 MB, more than maxmemory-clients (a
 * quarter of the launcher's 1 GiB heap), so the server must disconnect the ones holding most; a
 * disconnect is a write refused or the stream ending (after {@code -ERR client buffers over
 * maxmemory-clients}). A reply other than an error would mean the server ran an incomplete request.
 *
 * <p>Owned by its own thread; the request bytes are shared, read-only, by all of them.
 */
final class StalledLargeMset implements Runnable {
  static final int CLIENTS = 6;
  static final int PAIRS = 56;
  private static final int CHUNK = 1 << 20;

  private final byte[] mostOfRequest;
  private final int port;
  private final String password;
  private final HostileSockets sockets;
  private final CycleClock clock;
  private final PatternCounters counters;
  private final LoadCounters problems;
  private final BooleanSupplier stopping;

  StalledLargeMset(
      byte[] mostOfRequest,
      int port,
      String password,
      HostileSockets sockets,
      CycleClock clock,
      PatternCounters counters,
      LoadCounters problems,
      BooleanSupplier stopping) {
    this.mostOfRequest = mostOfRequest;
    this.port = port;
    this.password = password;
    this.sockets = sockets;
    this.clock = clock;
    this.counters = counters;
    this.problems = problems;
    this.stopping = stopping;
  }

  /** An MSET of {@link #PAIRS} values of 1 MiB, less its last 4 MiB. */
  static byte[] mostOfRequest() {
    byte[] value = new byte[1 << 20];
    Arrays.fill(value, (byte) 'm');
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    wire.writeBytes(HostileSockets.ascii("*" + (1 + 2 * PAIRS) + "\r\n$4\r\nMSET\r\n"));
    for (int i = 0; i < PAIRS; i++) {
      String key = "soak:h:m:" + i;
      wire.writeBytes(
          HostileSockets.ascii(
              "$" + key.length() + "\r\n" + key + "\r\n$" + value.length + "\r\n"));
      wire.writeBytes(value);
      wire.writeBytes(HostileSockets.ascii("\r\n"));
    }
    return Arrays.copyOf(wire.toByteArray(), wire.size() - (4 << 20));
  }

  @Override
  public void run() {
    clock.eachActiveCycle(
        stopping,
        () -> {
          CycleClock.sleep(
              1000); // after the other patterns have started, in the middle of the load
          once(clock.activeEndNanos());
        });
  }

  private void once(long stallUntil) {
    counters.attempts().increment();
    Socket socket = null;
    try {
      socket = sockets.authenticated(port, password, 200, this::fail);
      if (socket == null) {
        return;
      }
      OutputStream out = socket.getOutputStream();
      try {
        for (int at = 0; at < mostOfRequest.length && !stopping.getAsBoolean(); at += CHUNK) {
          out.write(mostOfRequest, at, Math.min(CHUNK, mostOfRequest.length - at));
        }
      } catch (IOException cutOff) {
        counters.disconnects().increment();
        return;
      }
      stall(socket, stallUntil);
    } catch (IOException e) {
      fail(e.toString());
    } finally {
      if (socket != null) {
        sockets.reset(socket);
      }
    }
  }

  /** Holds the request open until {@code until}, watching for the server to cut it off. */
  private void stall(Socket socket, long until) throws IOException {
    while (System.nanoTime() < until && !stopping.getAsBoolean()) {
      try {
        String line = HostileSockets.readLine(socket);
        if (line == null || line.startsWith("-")) {
          counters.disconnects().increment();
        } else {
          fail("the server answered an incomplete MSET with " + line);
        }
        return;
      } catch (SocketTimeoutException stillOpen) {
        // the server holds the request: stall on
      } catch (IOException reset) {
        counters.disconnects().increment();
        return;
      }
    }
  }

  private void fail(String description) {
    counters.errors().increment();
    problems.problem("hostile " + counters.id() + ": " + description);
  }
}
