package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cellar bench eviction-tracking}: what the LRU and LFU policies cost the request path. The
 * same server is started under {@code noeviction} and under each tracking policy, without a memory
 * limit (so nothing is evicted and the difference is the access tracker's work), pinned to one core
 * with {@code redis-benchmark} on another; SET then GET at one pipeline depth, the policies
 * rotating within each round so a slow spell of the host falls on all of them. Reports each
 * policy's median throughput and its ratio to {@code noeviction}'s.
 */
@Command(
    name = "eviction-tracking",
    mixinStandardHelpOptions = true,
    description =
        "The cost of the LRU and LFU policies' access tracking: SET and GET throughput under"
            + " noeviction and each tracking policy, same server, same run, as ratios.")
public final class EvictionTrackingBenchmark implements Callable<Integer> {
  @Option(names = "--rounds", description = "Rounds; medians reported (default ${DEFAULT-VALUE}).")
  int rounds = 5;

  @Option(names = "--requests", description = "Requests per test (default ${DEFAULT-VALUE}).")
  long requests = 2_000_000;

  @Option(names = "--keyspace", description = "Keys drawn at random (default ${DEFAULT-VALUE}).")
  int keyspace = 1_000_000;

  @Option(names = "--pipeline", description = "Pipeline depth (default ${DEFAULT-VALUE}).")
  int pipeline = 16;

  @Option(
      names = "--clients",
      description = "redis-benchmark connections (default ${DEFAULT-VALUE}).")
  int clients = 50;

  @Option(
      names = "--policies",
      split = ",",
      description = "Policies; the first is the baseline (default ${DEFAULT-VALUE}).")
  List<String> policies = List.of("noeviction", "allkeys-lru", "allkeys-lfu");

  @Option(names = "--server-cpu", description = "Server's core (default ${DEFAULT-VALUE}).")
  int serverCpu = 0;

  @Option(
      names = "--client-cpu",
      description = "redis-benchmark's core (default ${DEFAULT-VALUE}).")
  int clientCpu = 1;

  @Option(names = "--cellar", description = "The cellar launcher (default: this checkout's).")
  Path cellarScript = Tools.defaultCellarScript();

  @Option(names = "--json", description = "Also write the results as JSON to this file.")
  Path json;

  @Override
  public Integer call() throws Exception {
    Tools tools = Tools.locate(cellarScript, false);
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Placement placement = Placement.pinned(serverCpu, clientCpu);
    Path work = Files.createTempDirectory("cellar-eviction-tracking");
    children.deleteAtExit(work);
    Map<String, List<Double>> sets = new LinkedHashMap<>();
    Map<String, List<Double>> gets = new LinkedHashMap<>();
    String started = Instant.now().toString();
    for (int round = 0; round < rounds; round++) {
      for (int p = 0; p < policies.size(); p++) {
        String policy = policies.get((p + round) % policies.size());
        double[] rates = measure(tools, children, placement, work, policy);
        sets.computeIfAbsent(policy, k -> new ArrayList<>()).add(rates[0]);
        gets.computeIfAbsent(policy, k -> new ArrayList<>()).add(rates[1]);
        System.err.printf(
            Locale.ROOT,
            "round %d %s: SET %.0f/s GET %.0f/s%n",
            round + 1,
            policy,
            rates[0],
            rates[1]);
      }
    }
    String report = report(started, sets, gets);
    System.out.print(report);
    if (json != null) {
      Files.writeString(json, json(started, sets, gets), StandardCharsets.UTF_8);
    }
    return 0;
  }

  /** One server under {@code policy}: SET, then GET; returns both rates. */
  private double[] measure(
      Tools tools, ChildProcesses children, Placement placement, Path work, String policy)
      throws IOException, InterruptedException {
    int port = SessionRunner.freePort();
    Path dir = Files.createTempDirectory(work, policy);
    List<String> command =
        placement.onServerCpu(
            List.of(
                tools.cellarScript().toString(),
                "server",
                "--port",
                Integer.toString(port),
                "--dir",
                dir.toString(),
                "--http-port",
                "0",
                "--ipc",
                "no",
                "--threads",
                "1",
                "--fsync",
                "no",
                "--maxmemory-policy",
                policy));
    RedisBenchmarkRunner runner = new RedisBenchmarkRunner(tools, children, work);
    try (ServerProcess server =
        ServerProcess.startCellar(
            command, port, work.resolve(policy + ".log"), children, Duration.ofMinutes(3))) {
      double set =
          runner
              .run(port, placement, new Workload("set", pipeline, requests, clients, keyspace, 3))
              .opsPerSecond();
      double get =
          runner
              .run(port, placement, new Workload("get", pipeline, requests, clients, keyspace, 3))
              .opsPerSecond();
      return new double[] {set, get};
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private String report(
      String started, Map<String, List<Double>> sets, Map<String, List<Double>> gets) {
    String base = policies.get(0);
    StringBuilder b =
        new StringBuilder()
            .append(
                String.format(
                    Locale.ROOT,
                    "`cellar bench eviction-tracking --rounds %d --requests %d --pipeline %d`, %s:"
                        + " Cellar pinned to CPU %d (--threads 1, --fsync no, no maxmemory),"
                        + " redis-benchmark on CPU %d, %d clients, %d random keys, 3-byte values;"
                        + " medians of %d rounds.%n%n",
                    rounds,
                    requests,
                    pipeline,
                    started,
                    serverCpu,
                    clientCpu,
                    clients,
                    keyspace,
                    rounds))
            .append("| policy | SET /s | GET /s | SET / ")
            .append(base)
            .append(" | GET / ")
            .append(base)
            .append(" |\n|---|---:|---:|---:|---:|\n");
    for (String policy : policies) {
      double set = median(sets.get(policy));
      double get = median(gets.get(policy));
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %,.0f | %.2fx | %.2fx |%n",
              policy,
              set,
              get,
              set / median(sets.get(base)),
              get / median(gets.get(base))));
    }
    return b.toString();
  }

  private String json(
      String started, Map<String, List<Double>> sets, Map<String, List<Double>> gets) {
    StringBuilder b = new StringBuilder("{\n  \"benchmark\": \"eviction-tracking\",\n");
    b.append("  \"started\": \"").append(started).append("\",\n");
    b.append(
        String.format(
            Locale.ROOT,
            "  \"rounds\": %d, \"requests\": %d, \"pipeline\": %d, \"clients\": %d,"
                + " \"keyspace\": %d,%n  \"policies\": {%n",
            rounds,
            requests,
            pipeline,
            clients,
            keyspace));
    for (int i = 0; i < policies.size(); i++) {
      String policy = policies.get(i);
      b.append(
          String.format(
              Locale.ROOT,
              "    \"%s\": {\"set_ops_per_s\": %s, \"get_ops_per_s\": %s,"
                  + " \"set_median\": %.1f, \"get_median\": %.1f}%s%n",
              policy,
              sets.get(policy),
              gets.get(policy),
              median(sets.get(policy)),
              median(gets.get(policy)),
              i + 1 < policies.size() ? "," : ""));
    }
    return b.append("  }\n}\n").toString();
  }
}
