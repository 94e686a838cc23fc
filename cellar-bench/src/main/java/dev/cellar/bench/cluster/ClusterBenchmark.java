package dev.cellar.bench.cluster;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.JsonReport;
import dev.cellar.bench.server.LauncherOptions;
import dev.cellar.bench.server.ServerProcess;
import dev.cellar.bench.server.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench cluster}: the cluster's targets, each measured on real processes started as a
 * user starts them. Uniformity: a lost node's leaderships on five nodes, against a successor ring
 * and plain rendezvous order for the same nodes and shards. Failover: SIGKILL of a shard's leader,
 * until a write to its slot is acknowledged again, over several kills, while a writer checks that
 * no acknowledged write is lost. Throughput: SET at pipeline 16 by redis-benchmark against a single
 * node, the three-node cluster and a Redis Cluster of three masters and three replicas, in one run.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description =
        "The cluster against its targets: uniform failover on 5 nodes (against a successor ring),"
            + " failover time after SIGKILL of a leader, and SET throughput of a 3-node cluster"
            + " against a single node and a Redis Cluster, as ratios in one run.")
public final class ClusterBenchmark implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcherOptions;

  @Option(
      names = "--parts",
      split = ",",
      description = "Which parts: uniformity, failover, throughput (default all).")
  List<String> parts = List.of("uniformity", "failover", "throughput");

  @Option(names = "--kills", description = "Leader kills in the failover part (default 10).")
  int kills = 10;

  @Option(names = "--requests", description = "SET requests per throughput round (default 300000).")
  int requests = 300_000;

  @Option(
      names = "--cluster-requests",
      description =
          "SET requests per round against the Cellar cluster (default 20000: it runs at hundreds"
              + " a second on two cores, see docs/benchmarks.md).")
  int clusterRequests = 20_000;

  @Option(names = "--clients", description = "redis-benchmark connections (default 50).")
  int clients = 50;

  @Option(names = "--pipeline", description = "Pipeline depth (default 16).")
  int pipeline = 16;

  @Option(names = "--value-size", description = "Value bytes (default 64).")
  int valueSize = 64;

  @Option(
      names = "--base-port",
      description = "First port of the clusters (default 23000; Raft ports are 10000 above).")
  int basePort = 23000;

  @Option(names = "--json", description = "Write the results as JSON here.")
  Path json;

  @Override
  public Integer call() throws Exception {
    Path launcher = launcherOptions.executableLauncher(spec);
    Tools tools = Tools.locate(launcher, false);
    Path work = launcherOptions.newRunDirectory("cellar-bench-cluster");
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("benchmark", "cluster");
    results.put("host_cpus", Runtime.getRuntime().availableProcessors());
    if (parts.contains("uniformity")) {
      results.put("uniformity", new UniformityPart(launcher, work, basePort).run());
    }
    if (parts.contains("failover")) {
      results.put("failover", new FailoverPart(launcher, work, basePort + 10, kills).run());
    }
    if (parts.contains("throughput")) {
      results.put("throughput", throughput(tools, work));
    }
    String text = JsonReport.render(results);
    System.out.print(text);
    if (json != null) {
      Files.writeString(json, text);
    }
    if (!launcherOptions.keepData()) {
      deleteTree(work);
    }
    return 0;
  }

  /** One round each, in turn, twice: a single node (fsync always and everysec), the clusters. */
  private Map<String, Object> throughput(Tools tools, Path work) throws Exception {
    SetThroughput bench =
        new SetThroughput(tools.redisBenchmark(), clients, pipeline, requests, valueSize);
    SetThroughput clusterBench =
        new SetThroughput(tools.redisBenchmark(), clients, pipeline, clusterRequests, valueSize);
    Map<String, List<Double>> rounds = new LinkedHashMap<>();
    for (String target :
        List.of(
            "cellar_single_always", "cellar_single_everysec", "cellar_cluster3", "redis_cluster")) {
      rounds.put(target, new ArrayList<>());
    }
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    for (int round = 0; round < 2; round++) {
      for (String fsync : List.of("always", "everysec")) {
        int port = freePort();
        Path dir = Files.createDirectories(work.resolve("single-" + fsync + "-" + round));
        List<String> command =
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
                "--fsync",
                fsync);
        try (ServerProcess server =
            ServerProcess.startCellar(
                command, port, work.resolve("single.log"), children, Duration.ofMinutes(3))) {
          rounds.get("cellar_single_" + fsync).add(bench.run(port, false));
        }
      }
      Path clusterDir = work.resolve("throughput-cluster-" + round);
      try (LocalClusterRun cluster =
          new LocalClusterRun(tools.cellarScript(), clusterDir, 3, basePort + 20)) {
        for (int port : cluster.ports()) {
          ClusterProbe.awaitOk(port, 90_000);
        }
        Thread.sleep(5000); // leaderships settle where the plan puts them
        rounds.get("cellar_cluster3").add(clusterBench.run(cluster.ports().getFirst(), true));
      }
      try (RedisClusterRun redis =
          new RedisClusterRun(
              tools.redisServer(),
              tools.redisCli(),
              work.resolve("redis-" + round),
              basePort + 30)) {
        rounds.get("redis_cluster").add(bench.run(redis.port(), true));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workload", bench.describe());
    out.put("cellar_cluster3_workload", clusterBench.describe());
    Map<String, Double> best = new LinkedHashMap<>();
    for (var e : rounds.entrySet()) {
      out.put(e.getKey() + "_ops", e.getValue());
      best.put(e.getKey(), e.getValue().stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }
    double cluster = best.get("cellar_cluster3");
    out.put("cluster3_vs_single_always", cluster / best.get("cellar_single_always"));
    out.put("cluster3_vs_single_everysec", cluster / best.get("cellar_single_everysec"));
    out.put("cluster3_vs_redis_cluster", cluster / best.get("redis_cluster"));
    out.put("target_vs_single", 0.2);
    return out;
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
