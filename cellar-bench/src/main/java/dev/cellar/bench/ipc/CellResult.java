package dev.cellar.bench.ipc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one timed cell measured: a client (over a transport) against a server at one batch size and
 * one command.
 *
 * @param server {@code cellar} or {@code redis}
 * @param transport {@code shm} or {@code tcp}
 * @param mode how GET's values were handed over
 * @param operations commands answered in the timed part
 * @param seconds wall time of the timed part
 * @param serverCpuNanos the server process's CPU time (utime + stime, all threads) over the timed
 *     part
 * @param serverJitNanos of that, its JIT compiler threads' (zero for Redis)
 * @param clientCpuNanos this JVM's CPU time over the timed part (the client thread, and whatever
 *     else the client JVM ran meanwhile: its JIT and GC)
 */
record CellResult(
    String server,
    String transport,
    int batch,
    Op op,
    Mode mode,
    long operations,
    double seconds,
    long rttP50,
    long rttP99,
    long rttP999,
    long rttMax,
    double rttMean,
    long serverCpuNanos,
    long serverJitNanos,
    long clientCpuNanos) {

  double opsPerSecond() {
    return operations / seconds;
  }

  double serverCpuPerOp() {
    return (double) serverCpuNanos / operations;
  }

  /** The metrics by the names the JSON contract fixes, and a few more. */
  Map<String, Double> metrics() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("ops_per_s", round(opsPerSecond()));
    m.put("rtt_p50_ns", (double) rttP50);
    m.put("rtt_p99_ns", (double) rttP99);
    m.put("rtt_p999_ns", (double) rttP999);
    m.put("rtt_max_ns", (double) rttMax);
    m.put("rtt_mean_ns", round(rttMean));
    m.put("server_cpu_ns_per_op", round(serverCpuPerOp()));
    m.put(
        "server_cpu_excl_jit_ns_per_op",
        round((double) (serverCpuNanos - serverJitNanos) / operations));
    m.put("client_cpu_ns_per_op", round((double) clientCpuNanos / operations));
    m.put("operations", (double) operations);
    return m;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
