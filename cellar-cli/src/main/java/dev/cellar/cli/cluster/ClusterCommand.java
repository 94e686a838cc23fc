package dev.cellar.cli.cluster;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code cellar cluster}: a local cluster of node processes on this machine, for trying it. */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description =
        "A local cluster for trying it: start runs N node processes and stops them on SIGTERM;"
            + " restart-node starts one of them again. docs/cluster.md has the production setup.",
    subcommands = {
      ClusterStartCommand.class,
      RestartNodeCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ClusterCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "name a cluster command: start or restart-node");
  }
}
