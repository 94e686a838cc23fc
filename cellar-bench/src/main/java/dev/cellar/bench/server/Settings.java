package dev.cellar.bench.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark run does, validated once by the command.
 *
 * @param requests requests per measured test at pipelines above 1
 * @param requestsP1 requests per measured test at pipeline 1 (unpipelined runs are the slowest)
 * @param warmup requests per test, at pipeline 16, run and discarded before measuring
 * @param straceRequests requests per traced test
 */
record Settings(
    int keyspace, int valueSize, int clients, List<String> tests, List<Integer> pipelines,
    long requests, long requestsP1, long warmup, int rounds, List<Durability> modes,
    boolean strace, long straceRequests, List<Integer> stracePipelines, boolean memory, boolean unpinned) {

  static final int WARMUP_PIPELINE = 16;

  Workload measured(String test, int pipeline) {
    return new Workload(test, pipeline, pipeline == 1 ? requestsP1 : requests, clients, keyspace, valueSize);
  }

  Workload warmup(String test) {
    return new Workload(test, WARMUP_PIPELINE, warmup, clients, keyspace, valueSize);
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
    config.put("warmup_requests", warmup);
    config.put("rounds", rounds);
    config.put("modes", modes.stream().map(Durability::id).toList());
    config.put("strace", strace);
    config.put("strace_requests", straceRequests);
    config.put("strace_pipelines", stracePipelines);
    config.put("memory", memory);
    config.put("unpinned", unpinned);
    return config;
  }
}
