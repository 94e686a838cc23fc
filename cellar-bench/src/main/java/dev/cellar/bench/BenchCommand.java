package dev.cellar.bench;

import dev.cellar.bench.atrest.AtRestBenchmark;
import dev.cellar.bench.cache.CachePolicyBenchmark;
import dev.cellar.bench.codecs.CodecsBenchmark;
import dev.cellar.bench.crash.CrashCommand;
import dev.cellar.bench.embedded.EmbeddedBenchmark;
import dev.cellar.bench.groupcommit.GroupCommitBenchmark;
import dev.cellar.bench.ipc.IpcBenchmark;
import dev.cellar.bench.jmh.MemoryAccessCommand;
import dev.cellar.bench.memory.MemoryLatencyBenchmark;
import dev.cellar.bench.replay.ReplayBenchmark;
import dev.cellar.bench.server.ServerBenchmark;
import dev.cellar.bench.soak.SoakBenchmark;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench}: the benchmarks of this module as subcommands. The root launcher runs this
 * class with the arguments after the word {@code bench}.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks of Cellar against its peers.",
    subcommands = {
      EmbeddedBenchmark.class,
      CodecsBenchmark.class,
      GroupCommitBenchmark.class,
      ReplayBenchmark.class,
      MemoryAccessCommand.class,
      MemoryLatencyBenchmark.class,
      ServerBenchmark.class,
      dev.cellar.bench.server.IoBenchmark.class,
      dev.cellar.bench.server.EvictionTrackingBenchmark.class,
      IpcBenchmark.class,
      SoakBenchmark.class,
      CrashCommand.class,
      AtRestBenchmark.class,
      CachePolicyBenchmark.class,
      dev.cellar.bench.cluster.ClusterBenchmark.class,
      CommandLine.HelpCommand.class
    })
public final class BenchCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark to run");
  }

  public static void main(String[] args) {
    // Named as the person typed it (the launcher drops "cellar"), so usage lines read "cellar bench
    // server ...".
    System.exit(new CommandLine(new BenchCommand()).setCommandName("cellar bench").execute(args));
  }
}
