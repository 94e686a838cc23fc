package dev.cellar.bench.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark run does, validated once by the command.
 *
 * @param requests requests per measured test at pipelines above 1
 * @param requestsP1 requests per measured test at pipeline 1 (unpipelined runs are the slowest)
 * @param warmup requests per test and measured pipeline depth in one warm-up round
 * @param warmupRounds most warm-up rounds; fewer once the JIT compilers are nearly idle
 * @param straceRequests requests per traced test
 * @param coldRequests SETs at pipeline 1 sent as soon as a server answers its first PING, before
 *     the load and the warm-up (0: no cold run)
 * @param sustained the sustained-overwrite row
 */
record Settings(
    int keyspace,
    int valueSize,
    int clients,
    List<String> tests,
    List<Integer> pipelines,
    long requests,
    long requestsP1,
    long warmup,
    int warmupRounds,
    int rounds,
    List<Durability> modes,
    boolean strace,
    long straceRequests,
    List<Integer> stracePipelines,
    boolean memory,
    boolean unpinned,
    long coldRequests,
    Sustained sustained) {

  /**
   * The sustained-overwrite row: SETs at pipeline {@link #PIPELINE} over the whole key space, long
   * enough that compaction runs beside the request path for most of the measured run, each server
   * in a session of its own (fresh process, the key space loaded, {@code warmup} SETs of the same
   * workload untimed, then {@code requests} measured).
   *
   * @param requests measured SETs per session; 0 for no sustained row
   * @param warmup untimed SETs before them
   * @param modes durability levels it runs at
   * @param only whether the other rows are skipped
   */
  record Sustained(long requests, long warmup, List<Durability> modes, boolean only) {
    static final int PIPELINE = 16;

    boolean enabled() {
      return requests > 0 && !modes.isEmpty();
    }

    /** A row of its own settings, for tests and callers that run no sustained sessions. */
    static Sustained none() {
      return new Sustained(0, 0, List.of(), false);
    }
  }

  /** The measured sustained workload. */
  Workload sustainedMeasured() {
    return new Workload(
        "set", Sustained.PIPELINE, sustained.requests(), clients, keyspace, valueSize);
  }

  /**
   * The untimed run before it: the same workload, so compaction is under way when timing starts.
   */
  Workload sustainedWarmup() {
    return new Workload(
        "set", Sustained.PIPELINE, sustained.warmup(), clients, keyspace, valueSize);
  }

  /**
   * A warm-up round in which the JIT compilers used less than this share of the wall time ends the
   * warm-up. Not zero: the compilers never go fully quiet (rare paths, compaction), and measured
   * after ten million requests they still used 2 to 5% of a round.
   */
  static final double QUIET_COMPILER_SHARE = 0.02;

  /** Consecutive quiet warm-up rounds that end the warm-up. */
  static final int QUIET_ROUNDS = 2;

  Workload measured(String test, int pipeline) {
    return new Workload(
        test, pipeline, pipeline == 1 ? requestsP1 : requests, clients, keyspace, valueSize);
  }

  /**
   * The untimed run of {@code test} at {@code pipeline} before any measurement. Each depth runs its
   * own code path (one request per read at depth 1, a parsed lookahead at 16 and more), so each is
   * warmed: otherwise the JVM compiles the depth-1 path inside the timed depth-1 test.
   */
  Workload warmup(String test, int pipeline) {
    return new Workload(test, pipeline, warmup, clients, keyspace, valueSize);
  }

  /**
   * The run sent to a server that has just started: SET at pipeline 1, the path a freshly started
   * JVM runs slowest until its JIT has compiled it, on keys not loaded yet.
   */
  Workload cold() {
    return new Workload("set", 1, coldRequests, clients, keyspace, valueSize);
  }

  Workload traced(String test, int pipeline) {
    return new Workload(test, pipeline, straceRequests, clients, keyspace, valueSize);
  }

  /** For the JSON report. */
  Map<String, Object> describe() {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("keyspace", keyspace);
    config.put("value_size", valueSize);
    config.put("clients", clients);
    config.put("tests", tests);
    config.put("pipelines", pipelines);
    config.put("requests", requests);
    config.put("requests_p1", requestsP1);
    config.put("cold_requests", coldRequests);
    config.put("warmup_requests", warmup);
    config.put("warmup_max_rounds", warmupRounds);
    config.put("warmup_quiet_compiler_share", QUIET_COMPILER_SHARE);
    config.put("warmup_quiet_rounds", QUIET_ROUNDS);
    config.put("rounds", rounds);
    config.put("modes", modes.stream().map(Durability::id).toList());
    config.put("strace", strace);
    config.put("strace_requests", straceRequests);
    config.put("strace_pipelines", stracePipelines);
    config.put("memory", memory);
    config.put("unpinned", unpinned);
    config.put("sustained_requests", sustained.requests());
    config.put("sustained_warmup_requests", sustained.warmup());
    config.put("sustained_pipeline", Sustained.PIPELINE);
    config.put("sustained_modes", sustained.modes().stream().map(Durability::id).toList());
    config.put("sustained_only", sustained.only());
    return config;
  }
}
