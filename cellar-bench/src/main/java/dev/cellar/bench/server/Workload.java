package dev.cellar.bench.server;

import java.util.List;

/**
 * One redis-benchmark run: {@code clients} connections, each keeping {@code pipeline} requests in
 * flight, {@code requests} in total, keys drawn uniformly from {@code key:000000000000} .. {@code
 * key:<keyspace - 1>}, values of {@code valueSize} bytes.
 *
 * @param test a redis-benchmark test as its {@code -t} takes it ({@code set}, {@code lpush}, {@code
 *     lrange_100}...), or {@code xadd}, which redis-benchmark has no test for: the custom command
 *     {@link #XADD} stands in
 */
record Workload(
    String test, int pipeline, long requests, int clients, int keyspace, int valueSize) {

  /**
   * The tests a run may name: redis-benchmark's own (each pipeline depth runs them in the order
   * given, so pops and {@code lrange_100} find what the pushes before them left, as in
   * redis-benchmark's default run), and {@code xadd}.
   */
  static final List<String> TESTS =
      List.of(
          "set",
          "get",
          "incr",
          "mset",
          "lpush",
          "rpush",
          "lpop",
          "rpop",
          "sadd",
          "hset",
          "spop",
          "zadd",
          "zpopmin",
          "lrange_100",
          "xadd");

  /** The command the {@code xadd} test sends: one entry, a random field value, an id of now. */
  static final List<String> XADD = List.of("XADD", "mystream", "*", "field", "__rand_int__");

  /** The name redis-benchmark gives this test in its CSV (or the start of it, before " ("). */
  String csvName() {
    return test.equals("xadd") ? String.join(" ", XADD) : test.toUpperCase(java.util.Locale.ROOT);
  }

  /** redis-benchmark's arguments for this run, after host and port. */
  List<String> arguments() {
    if (test.equals("xadd")) {
      List<String> custom = new java.util.ArrayList<>(common());
      custom.addAll(XADD);
      return custom;
    }
    List<String> standard = new java.util.ArrayList<>(common());
    standard.add("-t");
    standard.add(test);
    return standard;
  }

  private List<String> common() {
    return List.of(
        "-c",
        Integer.toString(clients),
        "-n",
        Long.toString(requests),
        "-r",
        Integer.toString(keyspace),
        "-d",
        Integer.toString(valueSize),
        "-P",
        Integer.toString(pipeline),
        "--csv");
  }

  /** Generous: 2 minutes plus 1 ms per request, for the slowest durability level. */
  long timeoutSeconds() {
    return 120 + requests / 1000;
  }
}
