package dev.cellar.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The server's connections once the hostile clients have stopped, while the well-behaved ones still
 * run: INFO {@code connected_clients} must come back to the soak's own RESP connections, and no
 * socket may stay open on the HTTP port. HTTP connections are not in INFO, so they are counted from
 * {@code /proc/net/tcp} and {@code tcp6}: sockets whose local port is the HTTP port, not listening,
 * and still owned by a process (an inode; a connection in TIME_WAIT has none and holds nothing of
 * the server's).
 *
 * @param expectedResp the well-behaved RESP connections (the load clients and the sampler's)
 * @param resp {@code connected_clients} at the last reading
 * @param http open HTTP connections at the last reading
 * @param evictedClients INFO {@code evicted_clients}: clients disconnected by maxmemory-clients
 *     over the run
 * @param seconds how long it took to come back, or the time waited if it did not
 */
record ConnectionsAfter(
    long expectedResp, long resp, long http, long evictedClients, double seconds) {
  /** How long the server gets to notice the last resets (its dead-peer sweep runs every 2 s). */
  static final long SETTLE_SECONDS = 20;

  boolean returned() {
    return resp == expectedResp && http == 0;
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "connected_clients %d (well-behaved: %d), HTTP connections %d, %s after the hostile clients stopped",
        resp,
        expectedResp,
        http,
        returned()
            ? String.format(Locale.ROOT, "%.1f s", seconds)
            : "still after " + SETTLE_SECONDS + " s");
  }

  /**
   * Reads until the connections are back to the well-behaved ones, or {@link #SETTLE_SECONDS} have
   * passed.
   */
  static ConnectionsAfter await(SoakSampler sampler, int httpPort, long expectedResp)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    while (true) {
      InfoFields info = sampler.info("clients", "stats");
      ConnectionsAfter now =
          new ConnectionsAfter(
              expectedResp,
              info.number("connected_clients", -1),
              openConnections(httpPort),
              info.number("evicted_clients", -1),
              (System.nanoTime() - start) / 1e9);
      if (now.returned() || System.nanoTime() - start > TimeUnit.SECONDS.toNanos(SETTLE_SECONDS)) {
        return now;
      }
      Thread.sleep(250);
    }
  }

  /** Connections on local port {@code port} held open by some process. */
  static long openConnections(int port) throws IOException {
    long open = 0;
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      Path path = Path.of(table);
      if (!Files.exists(path)) {
        continue;
      }
      for (String line : Files.readAllLines(path)) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !f[1].contains(":") || f[0].equals("sl")) {
          continue;
        }
        int localPort = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
        boolean listening = f[3].equals("0A");
        if (localPort == port && !listening && !f[9].equals("0")) {
          open++;
        }
      }
    }
    return open;
  }
}
