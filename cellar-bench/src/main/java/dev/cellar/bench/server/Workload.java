package dev.cellar.bench.server;

import java.util.List;

/**
 * One redis-benchmark run: {@code clients} connections, each keeping {@code pipeline} requests in
 * flight, {@code requests} in total, keys drawn uniformly from {@code key:000000000000} .. {@code
 * key:<keyspace - 1>}, values of {@code valueSize} bytes.
 *
 * @param test {@code set} or {@code get}, as redis-benchmark's {@code -t} takes it
 */
record Workload(
    String test, int pipeline, long requests, int clients, int keyspace, int valueSize) {

  /** redis-benchmark's arguments for this run, after host and port. */
  List<String> arguments() {
    return List.of(
        "-c",
        Integer.toString(clients),
        "-n",
        Long.toString(requests),
        "-r",
        Integer.toString(keyspace),
        "-d",
        Integer.toString(valueSize),
        "-t",
        test,
        "-P",
        Integer.toString(pipeline),
        "--csv");
  }

  /** Generous: 2 minutes plus 1 ms per request, for the slowest durability level. */
  long timeoutSeconds() {
    return 120 + requests / 1000;
  }
}
