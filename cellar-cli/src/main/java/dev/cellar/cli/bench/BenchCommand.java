package dev.cellar.cli.bench;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code cellar bench}, as the help of the {@code cellar} command lists it. The benchmarks live in
 * cellar-bench, which nothing may depend on (it pulls in every peer store), so the root launcher
 * sends {@code ./cellar bench ...} straight to that module's jar and this class never runs there.
 * It exists so that {@code cellar --help} names every command, and it says where to go when the cli
 * jar is run by hand.
 */
@Command(
    name = "bench",
    description =
        "Benchmarks: the engine against HashMap, Chronicle Map, MapDB, LMDB and RocksDB, group commit,"
            + " replay, codecs, the server against redis-server, soak and crash loops (docs/benchmarks.md);"
            + " `./cellar bench --help` lists them.")
public final class BenchCommand implements Runnable {
  @Spec CommandSpec spec;

  /** Whatever follows {@code bench}: it belongs to cellar-bench's own command line. */
  @Unmatched List<String> arguments;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "the benchmarks are in cellar-bench's jar, which the launcher runs: use ./cellar bench"
            + (arguments == null || arguments.isEmpty() ? "" : " " + String.join(" ", arguments))
            + " (or java --enable-native-access=ALL-UNNAMED -jar cellar-bench/target/cellar-bench.jar ...)");
  }
}
