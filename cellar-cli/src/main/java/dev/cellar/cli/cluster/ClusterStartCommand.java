package dev.cellar.cli.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cellar cluster start}: configures a local cluster in {@code --dir} (or reuses the one
 * there), starts one process per node, prints {@code node <id> pid <pid> port <port>} for each, and
 * waits; on SIGTERM or Ctrl-C it stops every node that runs (those {@code restart-node} started
 * too, found by their pid files) and waits for them. A node that dies meanwhile stays dead.
 */
@Command(
    name = "start",
    mixinStandardHelpOptions = true,
    description =
        "Starts a local cluster of --nodes node processes on RESP ports --base-port and up, and"
            + " stops them all on SIGTERM.")
public final class ClusterStartCommand implements Callable<Integer> {
  @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (default 3).")
  int nodes = 3;

  @Option(names = "--dir", paramLabel = "DIR", required = true, description = "Cluster directory.")
  Path dir;

  @Option(
      names = "--base-port",
      paramLabel = "P",
      description = "RESP port of the first node (default 7000); node i listens on P+i-1.")
  int basePort = 7000;

  @Option(
      names = "--replicas",
      paramLabel = "R",
      description = "Replicas of each shard (default 3, at most --nodes).")
  int replicas = 3;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (nodes < 1 || nodes > 64) {
      System.err.println("cellar cluster start: --nodes must be 1 to 64");
      return 2;
    }
    if (basePort < 1 || basePort + nodes - 1 > 65535) {
      System.err.println(
          "cellar cluster start: --base-port leaves no room for " + nodes + " ports");
      return 2;
    }
    LocalCluster cluster = new LocalCluster(dir);
    cluster.configure(nodes, basePort, Math.min(replicas, nodes));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopAll(cluster);
                  stopped.countDown();
                },
                "cluster-stop"));
    for (String id : cluster.nodeIds()) {
      Process process = cluster.start(id);
      System.out.println("node " + id + " pid " + process.pid() + " port " + cluster.port(id));
    }
    System.out.flush();
    stopped.await(); // until SIGTERM or Ctrl-C runs the hook
    return 0;
  }

  /** Sends SIGTERM to every running node, then waits for each (SIGKILL after 30 s). */
  private static void stopAll(LocalCluster cluster) {
    List<ProcessHandle> running = new ArrayList<>();
    try {
      for (String id : cluster.nodeIds()) {
        cluster.running(id).ifPresent(running::add);
      }
    } catch (IOException e) {
      return;
    }
    running.forEach(ProcessHandle::destroy);
    for (ProcessHandle node : running) {
      try {
        node.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception slow) {
        node.destroyForcibly();
      }
    }
  }
}
