package dev.cellar.cli.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cellar cluster restart-node}: starts a node of a local cluster again (after it was
 * killed), prints its {@code node <id> pid <pid> port <port>} line and returns; the node rejoins
 * its groups from its directory, and the {@code start} command's SIGTERM stops it with the others.
 */
@Command(
    name = "restart-node",
    mixinStandardHelpOptions = true,
    description = "Starts a stopped node of the local cluster in --dir again.")
public final class RestartNodeCommand implements Callable<Integer> {
  @Option(names = "--dir", paramLabel = "DIR", required = true, description = "Cluster directory.")
  Path dir;

  @Option(names = "--node", paramLabel = "ID", required = true, description = "The node, e.g. n2.")
  String node;

  @Override
  public Integer call() throws IOException {
    LocalCluster cluster = new LocalCluster(dir);
    if (!cluster.nodeIds().contains(node)) {
      System.err.println("cellar cluster restart-node: no node " + node + " in " + dir);
      return 2;
    }
    if (cluster.running(node).isPresent()) {
      System.err.println(
          "cellar cluster restart-node: node "
              + node
              + " is running (pid "
              + cluster.running(node).get().pid()
              + ")");
      return 1;
    }
    Process process = cluster.start(node);
    System.out.println("node " + node + " pid " + process.pid() + " port " + cluster.port(node));
    return 0;
  }
}
